import { useEffect } from 'react'
import { isBusy, useApp, type AppState } from '../state/store'
import { attentionCalls, type AttentionSnapshot } from './events'
import { callAttention } from './notify'

function snapshot(s: AppState): AttentionSnapshot {
  // The session's own turn, not "starting" (set while a new chat is made, before its turn begins).
  return { sessionId: s.sessionId, busy: isBusy({ ...s, starting: false }), pending: s.view.pendingApprovals }
}

function approvalWords(s: AppState, callId: string): string {
  const subject = s.approvals[callId]?.subject
  if (!subject) return 'A step waits for your answer.'
  switch (subject.kind) {
    case 'file':
      return `Change ${subject.path}?`
    case 'command':
      return `Run ${subject.command}?`
    case 'mcp':
      return `Call ${subject.server}/${subject.tool}?`
    default:
      return `Resolve the conflict in ${subject.path}.`
  }
}

/**
 * Mount once: a desktop notification when an approval waits or a turn ends while the window is in
 * the background (Settings › Notifications turns it off or adds a sound).
 */
export function useAttention(): void {
  useEffect(() => {
    let prev = snapshot(useApp.getState())
    return useApp.subscribe((state) => {
      const next = snapshot(state)
      const title = state.sessions.find((x) => x.id === state.sessionId)?.title ?? 'Stepwise'
      for (const call of attentionCalls(prev, next)) {
        if (call.kind === 'approval')
          callAttention('Approval needed', `${approvalWords(state, call.callId)} — ${title}`, call.callId)
        else callAttention('The agent is done', title, `done-${next.sessionId}`)
      }
      prev = next
    })
  }, [])
}
