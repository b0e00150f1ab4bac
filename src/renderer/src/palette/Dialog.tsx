import type React from 'react'
import { useEffectEvent, useId, useLayoutEffect, useRef, type KeyboardEvent, type ReactNode } from 'react'

export interface DialogProps {
  /** The accessible name; shown as the heading unless `hideTitle`. */
  title: string
  hideTitle?: boolean
  /** Called on Esc, on a click on the backdrop, and by the close button. */
  onClose(): void
  children: ReactNode
  className?: string
  testId?: string
  /** Short text under the title, also the dialog's description. */
  description?: ReactNode
}

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])'

/**
 * A modal dialog on the native `<dialog>` (the page behind it is inert): Esc and a click on the
 * backdrop close it, Tab stays inside, and focus goes back to what had it before. Mounted means
 * open. The element marked `data-autofocus` gets focus first (else the first control).
 */
export function Dialog({
  title,
  hideTitle,
  onClose,
  children,
  className,
  testId,
  description,
}: DialogProps): React.JSX.Element {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  const descriptionId = useId()
  const close = useEffectEvent(() => onClose())

  useLayoutEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
    if (!dialog.open) dialog.showModal()
    dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus()
    const onCancel = (event: Event): void => {
      event.preventDefault()
      close()
    }
    // Chromium may close a dialog without `cancel` (repeated Esc): keep React's state in step. A
    // `close` queued by an earlier cleanup (StrictMode's re-run) finds the dialog open again: ignore it.
    const onNativeClose = (): void => {
      if (!dialog.open) close()
    }
    dialog.addEventListener('cancel', onCancel)
    dialog.addEventListener('close', onNativeClose)
    return () => {
      dialog.removeEventListener('cancel', onCancel)
      dialog.removeEventListener('close', onNativeClose)
      if (dialog.open) dialog.close()
      if (opener?.isConnected) opener.focus()
    }
  }, [])

  const onKeyDown = (event: KeyboardEvent<HTMLDialogElement>): void => {
    if (event.key !== 'Tab' || !ref.current) return
    const items = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent)
    if (items.length === 0) return
    const first = items[0]
    const last = items[items.length - 1]
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault()
      last.focus()
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault()
      first.focus()
    }
  }

  return (
    <dialog
      ref={ref}
      className={`ui-dialog ${className ?? ''}`}
      aria-modal="true"
      aria-labelledby={hideTitle ? undefined : titleId}
      aria-label={hideTitle ? title : undefined}
      aria-describedby={description ? descriptionId : undefined}
      data-testid={testId}
      onKeyDown={onKeyDown}
      // A click on the backdrop lands on the <dialog> itself; the content fills it otherwise.
      onClick={(e) => e.target === e.currentTarget && onClose()}
    >
      <div className="ui-dialog-body">
        {!hideTitle && (
          // A <div>, not a <header>: a header inside the dialog would be a second banner landmark.
          <div className="ui-dialog-header">
            <h2 id={titleId}>{title}</h2>
            <button type="button" className="ui-icon-button" aria-label="Close" onClick={onClose}>
              ×
            </button>
          </div>
        )}
        {description && (
          <p id={descriptionId} className="ui-dialog-description">
            {description}
          </p>
        )}
        {children}
      </div>
    </dialog>
  )
}
