import { lazy, Suspense, useEffect } from 'react'
import type React from 'react'
import { DIFF_LOADING } from '../panels/loading'
import { contribute, sidePanel, type SideContext } from '../panels/registry'
import { invoke, type ApprovalRequest } from '../state/store'
import { takeAnswer } from './batch'
import { StepCallList } from './StepCallList'
import type { ApprovalAnswer, ApprovalPanelProps } from './types'

// Monaco is large: load it with the first diff, not with the app.
const ApprovalPanel = lazy(() => import('./ApprovalPanel').then((m) => ({ default: m.ApprovalPanel })))

function toPanelRequest(e: ApprovalRequest): ApprovalPanelProps['request'] {
  return { callId: e.callId, tool: e.tool, subject: e.subject, ...(e.rule ? { rule: e.rule } : {}) }
}

interface WaitingProps {
  sessionId: string
  request: ApprovalRequest
  /** How many more wait behind it. */
  queued: number
}

/** The oldest waiting approval of the live chat (none while replaying). */
export function waitingApproval(ctx: SideContext): WaitingProps | null {
  if (ctx.replayingAt !== undefined || !ctx.sessionId) return null
  const waiting = ctx.view.pendingApprovals.filter((id) => ctx.approvals[id])
  if (waiting.length === 0) return null
  return { sessionId: ctx.sessionId, request: ctx.approvals[waiting[0]], queued: waiting.length - 1 }
}

function WaitingApproval({ sessionId, request, queued }: WaitingProps): React.JSX.Element {
  const callId = request.callId
  // A call answered ahead ("Accept all" on its step) is answered as it asks.
  useEffect(() => {
    const answer = takeAnswer(callId)
    if (answer) void invoke('approval/resolve', { sessionId, callId, ...answer }).catch(() => undefined)
  }, [callId, sessionId])
  const onResolve = (answer: ApprovalAnswer): void => {
    void invoke('approval/resolve', { sessionId, callId, ...answer }).catch(() => undefined)
  }
  return (
    <>
      <StepCallList callId={callId} onResolve={onResolve} />
      <Suspense fallback={DIFF_LOADING}>
        <ApprovalPanel key={callId} request={toPanelRequest(request)} queued={queued} onResolve={onResolve} />
      </Suspense>
    </>
  )
}

/** Approvals: the waiting one comes before anything else beside the timeline. */
export const contributeApproval = (): (() => void) =>
  contribute({
    feature: 'approval',
    side: [
      sidePanel({
        id: 'approval',
        order: 0,
        label: 'Waiting for your approval',
        className: 'approval',
        show: waitingApproval,
        component: WaitingApproval,
      }),
    ],
  })
