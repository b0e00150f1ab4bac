import { useEffect, useMemo, useRef } from 'react'
import type React from 'react'
import { ConfirmDialog } from '../palette/ConfirmDialog'
import { newSession, useApp } from '../state/store'
import { cancelDelete, confirmDelete, useSessionEdit } from './actions'
import { SessionRow } from './SessionRow'
import { sessionTree } from './tree'
import './sessions.css'

/**
 * The project's sessions, forks indented under their parent; Ctrl+K → Sessions focuses it. Each
 * can be renamed or deleted (asked first; the toast's Undo brings it back).
 */
export function SessionList(): React.JSX.Element {
  const sessions = useApp((s) => s.sessions)
  const current = useApp((s) => s.sessionId)
  const hasProject = useApp((s) => Boolean(s.project))
  const tree = useMemo(() => sessionTree(sessions), [sessions])
  const list = useRef<HTMLUListElement>(null)
  const deleting = useSessionEdit((s) => s.confirmDelete)
  const renaming = useSessionEdit((s) => s.renaming)

  useEffect(() => {
    const focus = (): void => list.current?.querySelector('button')?.focus()
    window.addEventListener('stepwise:focus-sessions', focus)
    return () => window.removeEventListener('stepwise:focus-sessions', focus)
  }, [])

  return (
    <nav className="session-list" aria-label="Sessions">
      <div className="session-list-head">
        <h2>Sessions</h2>
        <button
          type="button"
          className="ui-button small"
          disabled={!hasProject}
          onClick={() => void newSession().catch(() => undefined)}
        >
          New chat
        </button>
      </div>
      {tree.length === 0 && <p className="empty">{hasProject ? 'No sessions yet.' : 'Open a project.'}</p>}
      <ul ref={list}>
        {tree.map(({ item, depth }) => (
          <SessionRow
            key={item.id}
            item={item}
            depth={depth}
            current={item.id === current}
            renaming={item.id === renaming}
          />
        ))}
      </ul>
      {deleting && (
        <ConfirmDialog
          title="Delete this chat?"
          message={`“${deleting.title}” leaves the list; Undo in the note that follows brings it back for a while. Its forks stay.`}
          confirmLabel="Delete"
          danger
          onConfirm={() => void confirmDelete()}
          onCancel={cancelDelete}
        />
      )}
    </nav>
  )
}
