import { useState } from 'react'
import type React from 'react'
import { cancelQueued, editQueued, isBusy, sendQueued, useApp, type QueuedMessage } from '../state/store'

const NONE: QueuedMessage[] = []

/**
 * Messages sent while the agent works, above the message box: each waits for the agent's next
 * step, and can be edited or taken back until then. After a stop or an error they stay here until
 * the user sends them.
 */
export function QueuedMessages(): React.JSX.Element | null {
  const items = useApp((s) => (s.sessionId ? (s.queued[s.sessionId] ?? NONE) : NONE))
  const busy = useApp(isBusy)
  if (items.length === 0) return null
  return (
    <div className="queued" data-testid="queued-messages" aria-label="Queued messages">
      <div className="queued-head">
        <span>
          {busy
            ? `Queued — ${items.length === 1 ? 'reaches' : 'reach'} the agent after its current step`
            : 'Queued — not sent yet'}
        </span>
        {!busy && (
          <button
            type="button"
            className="ui-button small primary"
            data-testid="queued-send"
            onClick={() => void sendQueued().catch(() => {})}
          >
            Send now
          </button>
        )}
      </div>
      {items.map((item) => (
        <QueuedRow key={item.id} item={item} />
      ))}
    </div>
  )
}

function QueuedRow({ item }: { item: QueuedMessage }): React.JSX.Element {
  const [draft, setDraft] = useState<string | null>(null)
  const save = (): void => {
    const text = draft?.trim()
    if (!text) return
    void editQueued(item.id, text).then(
      () => setDraft(null),
      () => {},
    )
  }
  return (
    <div className="queued-row" data-testid="queued-row">
      {draft === null ? (
        <span className="queued-text">{item.text}</span>
      ) : (
        <textarea
          className="queued-edit"
          aria-label="Edit the queued message"
          value={draft}
          autoFocus
          rows={Math.min(6, Math.max(1, draft.split('\n').length))}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault()
              save()
            } else if (e.key === 'Escape') {
              e.preventDefault()
              e.stopPropagation()
              setDraft(null)
            }
          }}
        />
      )}
      {draft === null ? (
        <button type="button" className="ui-button small" onClick={() => setDraft(item.text)}>
          Edit
        </button>
      ) : (
        <button type="button" className="ui-button small" onClick={save}>
          Save
        </button>
      )}
      <button
        type="button"
        className="ui-button small"
        aria-label="Take back this message"
        data-testid="queued-cancel"
        onClick={() => void cancelQueued(item.id).catch(() => {})}
      >
        Cancel
      </button>
    </div>
  )
}
