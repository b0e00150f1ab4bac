import type React from 'react'
import { useMemo, useReducer, useState } from 'react'
import type { FileChangeKind } from '../../../shared/protocol'
import { useApp } from '../state/store'
import { DiffBlock } from '../timeline/blocks'
import { answerChosen, answerLater, forgetAnswer } from './batch'
import { answeredByAll, notAskedYet, reviewOf, type ChangeState, type ReviewFile } from './changeReview'
import './review.css'
import type { ApprovalAnswer } from './types'

const STATE_WORDS: Record<ChangeState, string> = {
  asking: 'reviewing below',
  next: 'not asked yet',
  accepted: 'accepted',
  edited: 'accepted with edits',
  partial: 'partly accepted',
  rejected: 'rejected',
  'not-run': 'not applied',
}

const KIND: Record<FileChangeKind, string> = { create: 'new', modify: 'modified', delete: 'deleted' }

const REJECTED_WITH_STEP = 'Rejected with the rest of this step.'

/** What the user chose ahead for a change not asked yet: the words and the state they lead to. */
function chosen(file: ReviewFile): 'accept' | 'reject' | undefined {
  if (file.state !== 'next') return undefined
  const answer = answerChosen(file.callId)
  if (!answer) return undefined
  return answer.decision === 'reject' ? 'reject' : 'accept'
}

function FileRow({
  file,
  open,
  onToggle,
  onChoose,
}: {
  file: ReviewFile
  open: boolean
  onToggle(): void
  onChoose(answer: 'accept' | 'reject' | null): void
}): React.JSX.Element {
  const choice = chosen(file)
  const words =
    choice === 'accept'
      ? 'will be accepted'
      : choice === 'reject'
        ? 'will be rejected'
        : STATE_WORDS[file.state]
  const canPreview = file.state !== 'asking' && file.diff !== undefined
  return (
    <li
      className={`review-file review-file--${file.state}`}
      data-testid="review-file"
      data-state={file.state}
      data-choice={choice}
    >
      <div className="review-file-line">
        <button
          type="button"
          className="review-file-path"
          aria-expanded={canPreview ? open : undefined}
          disabled={!canPreview}
          onClick={onToggle}
          title={canPreview ? 'Show this change' : undefined}
        >
          <bdi>{file.path}</bdi>
        </button>
        <span className="review-file-kind">{KIND[file.change]}</span>
        {file.diff !== undefined ? (
          <span className="review-file-counts" aria-label={`${file.added} added, ${file.removed} removed`}>
            <span className="review-add">+{file.added}</span>{' '}
            <span className="review-del">−{file.removed}</span>
          </span>
        ) : (
          <span className="review-file-counts">after the change above</span>
        )}
        <span className="review-file-state" data-testid="review-file-state">
          {words}
        </span>
        {file.state === 'next' && (
          <span className="review-file-choice">
            <button
              type="button"
              className="approval-button approval-button--small"
              aria-pressed={choice === 'accept'}
              data-testid="review-file-accept"
              onClick={() => onChoose(choice === 'accept' ? null : 'accept')}
            >
              Accept
            </button>
            <button
              type="button"
              className="approval-button approval-button--small"
              aria-pressed={choice === 'reject'}
              data-testid="review-file-reject"
              onClick={() => onChoose(choice === 'reject' ? null : 'reject')}
            >
              Reject
            </button>
          </span>
        )}
      </div>
      {open && canPreview && <DiffBlock diff={file.diff ?? ''} label={`Proposed change to ${file.path}`} />}
    </li>
  )
}

/**
 * Above a waiting file change whose model step made several: one review of them all — the file
 * list with where each stands, "1 of N", accept or reject all, each file ahead of its turn. The
 * change being asked is below with its hunks; each later one is answered as it asks, with what was
 * chosen here (batch.ts), so the model is still told exactly what was applied, call by call.
 */
export function ChangeReview({
  callId,
  onResolve,
}: {
  callId: string
  onResolve(answer: ApprovalAnswer): void
}): React.JSX.Element | null {
  const events = useApp((s) => s.events)
  const review = useMemo(() => reviewOf(events, callId), [events, callId])
  const [open, setOpen] = useState<string | null>(null)
  // Choices ahead live in batch.ts, outside React: re-render when one is made.
  const [, chose] = useReducer((n: number) => n + 1, 0)
  if (!review) return null
  const rest = answeredByAll(review, (id) => answerChosen(id) !== undefined)
  // A file chosen on its own row keeps that choice; the bulk buttons then say how many they answer.
  const someChosen = rest.length < notAskedYet(review).length
  const bulk = (verb: string): string =>
    rest.length === 0
      ? verb
      : someChosen
        ? `${verb} the ${rest.length + 1} not chosen`
        : `${verb} all ${rest.length + 1}`
  const all = (answer: ApprovalAnswer): void => {
    answerLater(rest, answer)
    onResolve(answer)
  }
  const choose = (id: string, answer: 'accept' | 'reject' | null): void => {
    if (answer === null) forgetAnswer(id)
    else
      answerLater(
        [id],
        answer === 'accept'
          ? { decision: 'accept' }
          : { decision: 'reject', reason: 'Rejected in the review of this step.' },
      )
    chose()
  }
  const count = review.files.length
  return (
    <section className="approval-step review" aria-label="Changes of this step" data-testid="change-review">
      <div className="approval-step-head">
        <strong data-testid="review-position">
          File {review.index + 1} of {count}
        </strong>{' '}
        changes of this step
        <span className="approval-step-bulk">
          <button
            type="button"
            className="approval-button approval-button--small"
            data-testid="review-accept-all"
            onClick={() => all({ decision: 'accept' })}
          >
            {bulk('Accept')}
          </button>
          <button
            type="button"
            className="approval-button approval-button--small"
            data-testid="review-reject-all"
            onClick={() => all({ decision: 'reject', reason: REJECTED_WITH_STEP })}
          >
            {bulk('Reject')}
          </button>
        </span>
      </div>
      <ol className="review-files">
        {review.files.map((f) => (
          <FileRow
            key={f.callId}
            file={f}
            open={open === f.callId}
            onToggle={() => setOpen(open === f.callId ? null : f.callId)}
            onChoose={(answer) => choose(f.callId, answer)}
          />
        ))}
      </ol>
    </section>
  )
}
