import type React from 'react'
import { useState } from 'react'
import { logTail } from './model'
import { readMcpLog } from './mcpState'

type LogState = { status: 'idle' | 'loading' } | { status: 'shown'; text: string; omitted: number }

/** A server's stderr tail, read when the block is opened (and again on Refresh). */
export function LogBlock({ server }: { server: string }): React.JSX.Element {
  const [log, setLog] = useState<LogState>({ status: 'idle' })
  const load = async (): Promise<void> => {
    setLog({ status: 'loading' })
    try {
      setLog({ status: 'shown', ...logTail(await readMcpLog(server)) })
    } catch {
      setLog({ status: 'shown', text: '', omitted: 0 }) // toasted by invoke
    }
  }
  return (
    <details
      className="mcp-log"
      onToggle={(e) => e.currentTarget.open && log.status === 'idle' && void load()}
    >
      <summary data-testid="mcp-log-toggle">Log</summary>
      {log.status === 'loading' && <p className="ui-note">Reading the log…</p>}
      {log.status === 'shown' && (
        <>
          {log.omitted > 0 && <p className="ui-note">{log.omitted} earlier lines not shown.</p>}
          <pre className="mcp-log-text" data-testid="mcp-log" tabIndex={0} aria-label={`Log of ${server}`}>
            {log.text || 'Nothing logged yet.'}
          </pre>
          <button type="button" className="ui-button small" onClick={() => void load()}>
            Refresh log
          </button>
        </>
      )}
    </details>
  )
}
