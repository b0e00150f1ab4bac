import type React from 'react'
import { useMemo } from 'react'
import { useApp } from '../state/store'
import { summarizeArgs } from '../timeline'
import { answerLater } from './batch'
import { ChangeReview } from './ChangeReview'
import { reviewOf } from './changeReview'
import './step.css'
import { stepCallsOf, upcoming, type CallState } from './stepCalls'
import type { ApprovalAnswer } from './types'

const MARK: Record<CallState, string> = { done: '✓', waiting: '●', next: '○' }
const STATE_WORDS: Record<CallState, string> = { done: 'answered', waiting: 'asking now', next: 'comes next' }

function argsOf(name: string, raw: string): string {
  try {
    return summarizeArgs(name, JSON.parse(raw))
  } catch {
    return summarizeArgs(name, raw)
  }
}

/**
 * Above a waiting approval whose model step made several calls (or, when it announced its file
 * changes, the review of them: ChangeReview.tsx): "2 of 3", every call of the step with
 * where it stands, and one answer for this call and the ones still to come.
 */
export function StepCallList({
  callId,
  onResolve,
}: {
  callId: string
  onResolve(answer: ApprovalAnswer): void
}): React.JSX.Element | null {
  const events = useApp((s) => s.events)
  const step = useMemo(() => stepCallsOf(events, callId), [events, callId])
  const review = useMemo(() => reviewOf(events, callId) !== null, [events, callId])
  // A step whose file changes were announced together gets one review of them.
  if (review) return <ChangeReview callId={callId} onResolve={onResolve} />
  if (!step) return null
  const rest = upcoming(step)
  const all = (answer: ApprovalAnswer): void => {
    answerLater(rest, answer)
    onResolve(answer)
  }
  return (
    <section className="approval-step" aria-label="Calls of this step" data-testid="approval-step">
      <div className="approval-step-head">
        <strong data-testid="approval-step-position">
          {step.index + 1} of {step.calls.length}
        </strong>{' '}
        calls of this step
        {rest.length > 0 && (
          <span className="approval-step-bulk">
            <button
              type="button"
              className="approval-button approval-button--small"
              data-testid="accept-all"
              onClick={() => all({ decision: 'accept' })}
            >
              Accept this and the {rest.length} after it
            </button>
            <button
              type="button"
              className="approval-button approval-button--small"
              data-testid="reject-all"
              onClick={() => all({ decision: 'reject', reason: 'Rejected with the rest of this step.' })}
            >
              Reject all {rest.length + 1}
            </button>
          </span>
        )}
      </div>
      <ol className="approval-step-list">
        {step.calls.map((c) => (
          <li
            key={c.callId}
            className={`approval-step-call approval-step-call--${c.state}`}
            data-state={c.state}
          >
            <span aria-label={STATE_WORDS[c.state]} title={STATE_WORDS[c.state]}>
              {MARK[c.state]}
            </span>{' '}
            <code>{c.name}</code> <bdi>{argsOf(c.name, c.args)}</bdi>
          </li>
        ))}
      </ol>
    </section>
  )
}
