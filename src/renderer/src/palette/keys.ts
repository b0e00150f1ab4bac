/** Pure key matching for the global shortcuts, so it can be tested without a window. */

export type GlobalShortcut = 'palette' | 'undo'

export interface KeyLike {
  key: string
  ctrlKey: boolean
  metaKey: boolean
  shiftKey: boolean
  altKey: boolean
}

/**
 * Ctrl+K or Cmd+K opens the palette anywhere; the platform's undo (Cmd+Z on a Mac, Ctrl+Z
 * elsewhere, no Shift or Alt) undoes the agent's last change.
 */
export function matchShortcut(event: KeyLike, isMac: boolean): GlobalShortcut | null {
  if (event.altKey) return null
  const key = event.key.toLowerCase()
  if (
    key === 'k' &&
    !event.shiftKey &&
    (event.ctrlKey || event.metaKey) &&
    !(event.ctrlKey && event.metaKey)
  ) {
    return 'palette'
  }
  const mod = isMac ? event.metaKey && !event.ctrlKey : event.ctrlKey && !event.metaKey
  if (key === 'z' && mod && !event.shiftKey) return 'undo'
  return null
}

/** How a shortcut reads on this platform: "⌘K" on a Mac, "Ctrl+K" elsewhere. */
export function shortcutLabel(key: string, isMac: boolean): string {
  return isMac ? `⌘${key.toUpperCase()}` : `Ctrl+${key.toUpperCase()}`
}

export function isMacPlatform(userAgent: string): boolean {
  return /Mac|iPhone|iPad/.test(userAgent)
}
