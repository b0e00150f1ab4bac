import type React from 'react'
import type { SessionView } from '../../../shared/reducerTypes'

/**
 * Files that instruct agents or other tools, named above the timeline: rule files changed since the
 * project's previous session (they are in this session's system prompt), and agent files this
 * session changed without asking (full-auto, or a command) — the app's end summary of them.
 */
export function AgentFilesNotice({ view }: { view: SessionView }): React.JSX.Element | null {
  const { ruleFilesChanged, agentFilesChanged } = view
  if (ruleFilesChanged.length === 0 && agentFilesChanged.length === 0) return null
  return (
    <div className="agent-files-notice" role="note" data-testid="agent-files-notice">
      {ruleFilesChanged.map((c) => (
        <p key={c.path}>
          ⚠ <code>{c.path}</code> changed since session <code>{c.sessionId}</code>: it is in this session’s
          instructions; read it before trusting it.
        </p>
      ))}
      {agentFilesChanged.length > 0 && (
        <p>
          ⚠ Changed without asking, and read by agents or other tools:{' '}
          {agentFilesChanged.map((f, i) => (
            <span key={f}>
              {i > 0 && ', '}
              <code>{f}</code>
            </span>
          ))}
          . Review them before the next session or tool reads them.
        </p>
      )}
    </div>
  )
}
