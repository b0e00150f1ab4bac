import { useEffect, useEffectEvent } from 'react'

export type ApprovalKey = 'y' | 'n' | 'e' | 'r'

/** True when a key press belongs to what has focus: a text field, a select, or a Monaco editor. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof Element)) return false
  return (
    target.closest(
      'input, textarea, select, [contenteditable]:not([contenteditable="false"]), .monaco-editor',
    ) !== null
  )
}

/**
 * Y / N / E shortcuts for the approval panel, on the whole window, except while the user types in a
 * field or an editor, or holds a modifier. `enabled: false` turns them off (e.g. while the reason box
 * is open).
 */
export function useApprovalKeys(handlers: Partial<Record<ApprovalKey, () => void>>, enabled: boolean): void {
  const onKey = useEffectEvent((event: KeyboardEvent) => {
    if (event.defaultPrevented || event.repeat || event.ctrlKey || event.metaKey || event.altKey) return
    if (event.isComposing || isTypingTarget(event.target)) return
    const key = event.key.toLowerCase()
    if (key !== 'y' && key !== 'n' && key !== 'e' && key !== 'r') return
    const handler = handlers[key]
    if (!handler) return
    event.preventDefault()
    handler()
  })

  useEffect(() => {
    if (!enabled) return
    const listener = (event: KeyboardEvent): void => onKey(event)
    window.addEventListener('keydown', listener)
    return () => window.removeEventListener('keydown', listener)
  }, [enabled])
}
