/*
 * What deserves a call for attention between two states of the open session: an approval that was
 * not waiting before, or the end of a turn. Pure, so it is tested without a window.
 */

export interface AttentionSnapshot {
  sessionId: string | null
  busy: boolean
  pending: readonly string[]
}

export type AttentionCall = { kind: 'approval'; callId: string } | { kind: 'turn-ended' }

export function attentionCalls(prev: AttentionSnapshot, next: AttentionSnapshot): AttentionCall[] {
  // Opening another session replays its state: nothing new happened.
  if (prev.sessionId !== next.sessionId || next.sessionId === null) return []
  const before = new Set(prev.pending)
  const fresh = next.pending.filter((id) => !before.has(id))
  if (fresh.length > 0) return [{ kind: 'approval', callId: fresh[0] }]
  if (prev.busy && !next.busy && next.pending.length === 0) return [{ kind: 'turn-ended' }]
  return []
}
