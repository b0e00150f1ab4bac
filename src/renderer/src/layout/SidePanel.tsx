import { lazy, Suspense, useEffect } from 'react'
import type React from 'react'
import { takeAnswer } from '../approval/batch'
import { StepCallList } from '../approval/StepCallList'
import type { ApprovalAnswer, ApprovalPanelProps } from '../approval/types'
import { invoke, select, useApp, type ApprovalRequest } from '../state/store'
import { StepDetails } from '../timeline'
import { useDisplayedView, useReplaySeq } from '../replay/useReplay'

// Monaco is large: load it with the first diff, not with the app.
const ApprovalPanel = lazy(() =>
  import('../approval/ApprovalPanel').then((m) => ({ default: m.ApprovalPanel })),
)
const ReplayFiles = lazy(() => import('../replay/ReplayFiles'))

const loading = <div className="side-loading">Loading the diff view…</div>

function toPanelRequest(e: ApprovalRequest): ApprovalPanelProps['request'] {
  return { callId: e.callId, tool: e.tool, subject: e.subject, ...(e.rule ? { rule: e.rule } : {}) }
}

/** Right of the timeline: the oldest waiting approval first, else the selected step's details. */
export function SidePanel(): React.JSX.Element | null {
  const view = useDisplayedView()
  /** The replayed step, or undefined when live. */
  const replayingAt = useReplaySeq()
  const replaying = replayingAt !== undefined
  const approvals = useApp((s) => s.approvals)
  const sessionId = useApp((s) => s.sessionId)
  const selectedSeq = useApp((s) => s.selectedSeq)
  const waiting = replaying ? [] : view.pendingApprovals.filter((id) => approvals[id])
  const first = waiting.length > 0 && sessionId ? waiting[0] : null
  // A call answered ahead ("Accept all" on its step) is answered as it asks.
  useEffect(() => {
    if (!first || !sessionId) return
    const answer = takeAnswer(first)
    if (answer)
      void invoke('approval/resolve', { sessionId, callId: first, ...answer }).catch(() => undefined)
  }, [first, sessionId])
  if (first && sessionId) {
    const request = approvals[first]
    const onResolve = (answer: ApprovalAnswer): void => {
      void invoke('approval/resolve', { sessionId, callId: request.callId, ...answer }).catch(() => undefined)
    }
    return (
      <aside className="side-panel approval" aria-label="Waiting for your approval">
        <StepCallList callId={request.callId} onResolve={onResolve} />
        <Suspense fallback={loading}>
          <ApprovalPanel
            key={request.callId}
            request={toPanelRequest(request)}
            queued={waiting.length - 1}
            onResolve={onResolve}
          />
        </Suspense>
      </aside>
    )
  }
  const step = selectedSeq === null ? null : (view.steps.find((s) => s.seq === selectedSeq) ?? null)
  if (replaying && replayingAt !== null && !step) {
    return (
      <aside className="side-panel" aria-label="Replay">
        <Suspense fallback={loading}>
          <ReplayFiles seq={replayingAt} />
        </Suspense>
      </aside>
    )
  }
  if (!step) return null
  return (
    <aside className="side-panel" aria-label="Step details">
      <StepDetails step={step} onClose={() => select(null)} />
    </aside>
  )
}
