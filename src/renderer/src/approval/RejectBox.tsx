import type React from 'react'
import { useId, useState, type KeyboardEvent } from 'react'

interface RejectBoxProps {
  onConfirm(reason: string | undefined): void
  onCancel(): void
}

/** The optional reason for a rejection: Enter confirms (Shift+Enter for a new line), Esc cancels. */
export function RejectBox({ onConfirm, onCancel }: RejectBoxProps): React.JSX.Element {
  const id = useId()
  const [reason, setReason] = useState('')
  const confirm = (): void => onConfirm(reason.trim() || undefined)

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (event.nativeEvent.isComposing) return
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault()
      confirm()
    } else if (event.key === 'Escape') {
      event.preventDefault()
      onCancel()
    }
  }

  return (
    <div className="approval-reject-box" role="group" aria-label="Reject">
      <label htmlFor={id}>Reason (optional, sent to the model)</label>
      <textarea
        id={id}
        data-testid="reject-reason"
        value={reason}
        maxLength={4000}
        rows={2}
        autoFocus
        placeholder="What should it do instead?"
        onChange={(e) => setReason(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="approval-reject-actions">
        <button
          type="button"
          className="approval-button approval-button--danger"
          data-testid="reject-confirm"
          onClick={confirm}
        >
          Confirm reject (Enter)
        </button>
        <button type="button" className="approval-button" data-testid="reject-cancel" onClick={onCancel}>
          Cancel (Esc)
        </button>
      </div>
    </div>
  )
}
