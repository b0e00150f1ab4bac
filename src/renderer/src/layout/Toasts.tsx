import type React from 'react'
import { dismissToast, useApp } from '../state/store'

/** Errors and notices from the core, each with what to do; errors stay 10 s, and can be dismissed. */
export function Toasts(): React.JSX.Element {
  const toasts = useApp((s) => s.toasts)
  return (
    <div className="toasts" aria-live="polite">
      {toasts.map((t) => (
        <div key={t.id} className={`toast ${t.kind}`} role={t.kind === 'error' ? 'alert' : 'status'}>
          <span>{t.text}</span>
          <button
            type="button"
            className="ui-icon-button"
            aria-label="Dismiss"
            onClick={() => dismissToast(t.id)}
          >
            ×
          </button>
          {t.action && (
            <button
              type="button"
              className="ui-button small"
              data-testid="toast-action"
              onClick={() => {
                dismissToast(t.id)
                t.action!.run()
              }}
            >
              {t.action.label}
            </button>
          )}
        </div>
      ))}
    </div>
  )
}
