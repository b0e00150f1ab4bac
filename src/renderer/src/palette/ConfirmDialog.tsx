import type React from 'react'
import { Dialog } from './Dialog'

interface ConfirmDialogProps {
  title: string
  message: string
  /** Listed under the message, e.g. the files a restore would overwrite. */
  items?: readonly string[]
  confirmLabel: string
  danger?: boolean
  onConfirm(): void
  onCancel(): void
}

/** A yes/no question. The safe answer (Cancel) has focus first. */
export function ConfirmDialog({
  title,
  message,
  items,
  confirmLabel,
  danger,
  onConfirm,
  onCancel,
}: ConfirmDialogProps): React.JSX.Element {
  return (
    <Dialog title={title} onClose={onCancel} testId="confirm-dialog" description={message}>
      {items && items.length > 0 && (
        <ul className="ui-file-list" aria-label="Files">
          {items.map((item) => (
            <li key={item}>
              <code>{item}</code>
            </li>
          ))}
        </ul>
      )}
      <div className="ui-actions">
        <button type="button" className="ui-button" data-autofocus onClick={onCancel}>
          Cancel
        </button>
        <button
          type="button"
          className={`ui-button ${danger ? 'danger' : 'primary'}`}
          data-testid="confirm-ok"
          onClick={onConfirm}
        >
          {confirmLabel}
        </button>
      </div>
    </Dialog>
  )
}
