import { useState } from 'react'
import type { ApprovalAnswer } from './types'

/** An approval answers once: later clicks and keys do nothing, and the buttons can show it is sent. */
export function useResolveOnce(
  onResolve: (answer: ApprovalAnswer) => void,
): [resolved: boolean, resolve: (answer: ApprovalAnswer) => void] {
  const [resolved, setResolved] = useState(false)
  const resolve = (answer: ApprovalAnswer): void => {
    if (resolved) return
    setResolved(true)
    onResolve(answer)
  }
  return [resolved, resolve]
}
