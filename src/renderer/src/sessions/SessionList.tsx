import { useEffect, useMemo, useRef } from 'react'
import type React from 'react'
import { newSession, openSession, useApp } from '../state/store'
import { sessionTree } from './tree'
import './sessions.css'

const STATUS_LABEL: Record<string, string> = {
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

/** The project's sessions, forks indented under their parent; Ctrl+K → Sessions focuses it. */
export function SessionList(): React.JSX.Element {
  const sessions = useApp((s) => s.sessions)
  const current = useApp((s) => s.sessionId)
  const hasProject = useApp((s) => Boolean(s.project))
  const tree = useMemo(() => sessionTree(sessions), [sessions])
  const list = useRef<HTMLUListElement>(null)

  useEffect(() => {
    const focus = (): void => (list.current?.querySelector('button') as HTMLButtonElement | null)?.focus()
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
          <li key={item.id} style={{ paddingLeft: 8 + depth * 14 }}>
            <button
              type="button"
              data-testid="session-list-item"
              data-session-id={item.id}
              aria-current={item.id === current ? 'true' : undefined}
              className={item.id === current ? 'current' : undefined}
              onClick={() => void openSession(item.id)}
              title={`${item.title}\n${item.provider} · ${item.model}`}
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
          </li>
        ))}
      </ul>
    </nav>
  )
}
