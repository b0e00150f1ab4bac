import type React from 'react'
import { loadSession, type SessionSummary } from '../state/store'
import { askDelete, rename, startRename, stopRename } from './actions'

const STATUS_LABEL: Record<string, string> = {
  idle: 'new',
  running: 'running',
  done: 'done',
  error: 'error',
  interrupted: 'stopped',
  'step-limit': 'step limit',
}

function ago(ts: number): string {
  const s = Math.max(0, Math.round((Date.now() - ts) / 1000))
  if (s < 60) return 'just now'
  if (s < 3600) return `${Math.floor(s / 60)} min ago`
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`
  return new Date(ts).toLocaleDateString()
}

interface Props {
  item: SessionSummary
  depth: number
  current: boolean
  renaming: boolean
}

/**
 * One chat in the list: opens on click; Rename (F2) and Delete (Del) beside it, shown on hover and
 * focus. Renaming swaps the title for a field: Enter saves, Esc or leaving it cancels.
 */
export function SessionRow({ item, depth, current, renaming }: Props): React.JSX.Element {
  const onKeyDown = (e: React.KeyboardEvent<HTMLButtonElement>): void => {
    if (e.key === 'F2') startRename(item.id)
    else if (e.key === 'Delete') askDelete(item)
    else return
    e.preventDefault()
  }
  return (
    <li style={{ paddingLeft: 8 + depth * 14 }} className="session-row">
      {renaming ? (
        <input
          className="session-rename"
          data-testid="session-rename-input"
          aria-label={`New name for ${item.title}`}
          defaultValue={item.title}
          maxLength={200}
          autoFocus
          onFocus={(e) => e.currentTarget.select()}
          onKeyDown={(e) => {
            if (e.key === 'Enter') void rename(item, e.currentTarget.value)
            else if (e.key === 'Escape') stopRename()
            else return
            e.preventDefault()
          }}
          onBlur={stopRename}
        />
      ) : (
        <button
          type="button"
          data-testid="session-list-item"
          data-session-id={item.id}
          aria-current={current ? 'true' : undefined}
          className={`session-item${current ? ' current' : ''}`}
          onClick={() => void loadSession(item.id)}
          onKeyDown={onKeyDown}
          title={`${item.title}\n${item.provider} · ${item.model}\nF2 renames, Del deletes`}
        >
          {depth > 0 && (
            <span className="fork-mark" aria-label="fork of the session above">
              ↳
            </span>
          )}
          <span className="title">{item.title}</span>
          <span className={`meta status-${item.status}`}>
            {STATUS_LABEL[item.status] ?? item.status} · {ago(item.updatedAt)}
          </span>
        </button>
      )}
      {!renaming && (
        <span className="session-actions">
          <button
            type="button"
            className="session-action"
            data-testid="session-rename"
            aria-label={`Rename ${item.title}`}
            title="Rename (F2)"
            onClick={() => startRename(item.id)}
          >
            ✎
          </button>
          <button
            type="button"
            className="session-action"
            data-testid="session-delete"
            aria-label={`Delete ${item.title}`}
            title="Delete (Del)"
            onClick={() => askDelete(item)}
          >
            ×
          </button>
        </span>
      )}
    </li>
  )
}
