import type React from 'react'
import { useEffect, useId, useRef, type ReactNode } from 'react'
import { RejectBox } from './RejectBox'
// Its styles come with it: the elicitation card uses it outside the (lazily loaded) approval panel.
import './approval.css'

interface ApprovalActionsProps {
  acceptLabel: string
  /** When set, Accept is disabled and this says why. */
  acceptBlockedReason?: string
  /** True once an answer was sent: every button is disabled so nothing is sent twice. */
  resolved: boolean
  rejecting: boolean
  onRejectingChange(open: boolean): void
  onAccept(): void
  onReject(reason: string | undefined): void
  /** More buttons between Accept and Reject (Edit, for file changes). */
  children?: ReactNode
  /** Whether E (edit) is one of the keys to show. */
  editKey?: boolean
  /** A question that is not an approval (a server's elicitation): its own words and hooks. */
  answer?: {
    rejectLabel: string
    acceptTestId: string
    rejectTestId: string
    /** Y/N do not answer it: no key hint under the buttons, and Reject asks no reason. */
    noKeys: true
  }
}

/** The keys that answer, shown under the buttons while the question is open. */
function KeyHint({ editKey }: { editKey: boolean }): React.JSX.Element {
  return (
    <p className="approval-keys" data-testid="approval-keys">
      <kbd>Y</kbd> or <kbd>Enter</kbd> approve · <kbd>N</kbd> reject
      {editKey && (
        <>
          {' '}
          · <kbd>E</kbd> edit
        </>
      )}
    </p>
  )
}

/** Accept and Reject, with the optional reason box that Reject opens. */
export function ApprovalActions(props: ApprovalActionsProps): React.JSX.Element {
  const { acceptLabel, acceptBlockedReason, resolved, rejecting, onRejectingChange, answer } = props
  const rejectButton = useRef<HTMLButtonElement>(null)
  const hintId = useId()

  const returnFocus = useRef(false)

  const cancel = (): void => {
    returnFocus.current = true
    onRejectingChange(false)
  }

  // Cancelling the reason box puts focus back on Reject, where the keyboard user left it.
  useEffect(() => {
    if (rejecting || !returnFocus.current) return
    returnFocus.current = false
    rejectButton.current?.focus()
  }, [rejecting])

  return (
    <div className="approval-actions">
      <div className="approval-action-row">
        <button
          type="button"
          className="approval-button approval-button--primary"
          data-testid={answer?.acceptTestId ?? 'approve-button'}
          disabled={resolved || rejecting || acceptBlockedReason !== undefined}
          aria-describedby={acceptBlockedReason ? hintId : undefined}
          onClick={props.onAccept}
        >
          {acceptLabel}
        </button>
        {props.children}
        <button
          ref={rejectButton}
          type="button"
          className="approval-button approval-button--danger"
          data-testid={answer?.rejectTestId ?? 'reject-button'}
          aria-expanded={answer ? undefined : rejecting}
          disabled={resolved}
          onClick={() => (answer ? props.onReject(undefined) : onRejectingChange(!rejecting))}
        >
          {answer?.rejectLabel ?? 'Reject (N)'}
        </button>
        {acceptBlockedReason && (
          <span id={hintId} className="approval-hint">
            {acceptBlockedReason}
          </span>
        )}
      </div>
      {rejecting && !resolved && <RejectBox onConfirm={props.onReject} onCancel={cancel} />}
      {!rejecting && !resolved && !answer && <KeyHint editKey={props.editKey ?? false} />}
    </div>
  )
}
