import { useEffect, useEffectEvent } from 'react'
import { isMacPlatform, matchShortcut } from './keys'
import { togglePalette } from './paletteState'
import { undoLastChange } from './undo'

export const IS_MAC = typeof navigator !== 'undefined' && isMacPlatform(navigator.userAgent)

/** Whether a key press belongs to what has focus: a field, a select, an editor. */
function inEditable(target: EventTarget | null): boolean {
  return (
    target instanceof Element &&
    target.closest(
      'input, textarea, select, [contenteditable]:not([contenteditable="false"]), .monaco-editor',
    ) !== null
  )
}

/**
 * The app-wide shortcuts: Ctrl+K / Cmd+K toggles the command palette (even from a field), and
 * Ctrl+Z / Cmd+Z undoes the agent's last change when focus is not in a field or editor (there it
 * is the field's own undo) and no dialog is open. `CommandPalette` calls this: mount that, or call
 * this once yourself, not both.
 */
export function useGlobalShortcuts(): void {
  const onKey = useEffectEvent((event: KeyboardEvent) => {
    if (event.defaultPrevented || event.isComposing) return
    const shortcut = matchShortcut(event, IS_MAC)
    if (shortcut === 'palette') {
      // Not over another dialog (settings, a confirmation): one modal at a time.
      if (document.querySelector('dialog[open]:not(.palette-dialog)')) return
      event.preventDefault()
      event.stopPropagation()
      togglePalette()
    } else if (shortcut === 'undo') {
      if (event.repeat || inEditable(event.target) || document.querySelector('dialog[open]')) return
      event.preventDefault()
      void undoLastChange()
    }
  })

  useEffect(() => {
    const listener = (event: KeyboardEvent): void => onKey(event)
    // Capture, so an editor that keeps Ctrl+K for itself (Monaco's chords) does not swallow it.
    window.addEventListener('keydown', listener, true)
    return () => window.removeEventListener('keydown', listener, true)
  }, [])
}
