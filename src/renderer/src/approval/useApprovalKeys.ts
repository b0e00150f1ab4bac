import { useEffect, useEffectEvent, type RefObject } from 'react'

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
 * Whether Enter answers "accept" where focus is: on the page itself or in the approval panel, not on
 * one of its buttons or links (Enter presses those). Elsewhere Enter keeps its own meaning (a
 * timeline row, an overview bar, a dialog).
 */
function enterAccepts(target: EventTarget | null): boolean {
  if (target === document.body || target === document.documentElement || target === null) return true
  if (!(target instanceof Element)) return false
  return (
    target.closest('.side-panel.approval') !== null &&
    target.closest('button, a[href], summary, [role="button"]') === null
  )
}

/**
 * Y / N / E shortcuts for the approval panel, on the whole window, except while the user types in a
 * field or an editor, or holds a modifier. Enter is Y too while focus is on the page or in the
 * approval panel but not on a button or link. `enabled: false` turns them off (e.g. while the reason
 * box is open).
 */
export function useApprovalKeys(handlers: Partial<Record<ApprovalKey, () => void>>, enabled: boolean): void {
  const onKey = useEffectEvent((event: KeyboardEvent) => {
    if (event.defaultPrevented || event.repeat || event.ctrlKey || event.metaKey || event.altKey) return
    if (event.isComposing || isTypingTarget(event.target)) return
    const enter = event.key === 'Enter' && !event.shiftKey && enterAccepts(event.target)
    const key = enter ? 'y' : event.key.toLowerCase()
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

/**
 * A new approval takes focus, so its keys work at once and Esc in the message box (which stops the
 * turn) is no longer where the hand is. Focus stays where it is when the user is typing something:
 * a field with text in it (a half-written message), an editor.
 */
export function useTakeFocus(ref: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const active = document.activeElement
    const emptyField =
      (active instanceof HTMLTextAreaElement || active instanceof HTMLInputElement) && active.value === ''
    const idle = active === null || emptyField || !isTypingTarget(active)
    if (idle) ref.current?.focus({ preventScroll: true })
  }, [ref])
}
