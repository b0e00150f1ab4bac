import type React from 'react'
import { useEffect } from 'react'
import { Dialog } from '../palette/Dialog'
import { useApp } from '../state/store'
import { checkProjectFile, listenForMcpStatus, refreshMcp, useMcpUi } from './mcpState'
import { summaryLine } from './model'
import { ElicitationCards } from './ElicitationCard'
import { ProjectApproval } from './ProjectApproval'
import { ServerCard } from './ServerCard'
import type { McpList } from './types'
import './mcp.css'

/**
 * Mount once at the root: listens for `host.mcp-status`, shows servers' questions, asks about a project's `.mcp.json` when a
 * project opens. The MCP dialog itself is a panel (mcp/contribution.tsx) that `openMcp()` opens.
 */
export function McpRoot(): React.JSX.Element | null {
  const repo = useApp((s) => s.project?.repo ?? null)
  useEffect(() => listenForMcpStatus(), [])
  useEffect(() => {
    if (repo) void checkProjectFile()
  }, [repo])
  return (
    <>
      <ElicitationCards />
    </>
  )
}

export function McpDialog({ onClose }: { onClose(): void }): React.JSX.Element {
  const list = useMcpUi((s) => s.list)
  const error = useMcpUi((s) => s.error)
  return (
    <Dialog
      title="MCP servers"
      onClose={onClose}
      className="mcp-dialog"
      testId="mcp-dialog"
      description="Tools from Model Context Protocol servers. Their names and descriptions come from the servers themselves."
    >
      <div className="mcp-toolbar">
        <span className="ui-note" data-testid="mcp-summary">
          {summaryLine(list)}
        </span>
        {/* First focus here: not on Approve (Enter would approve), nor on the scrolling body. */}
        <button type="button" className="ui-button small" data-autofocus onClick={() => void refreshMcp()}>
          Refresh
        </button>
      </div>
      <McpView list={list} error={error} />
    </Dialog>
  )
}

/** The dialog's content, apart so it can be rendered from a list alone. */
export function McpView({ list, error }: { list: McpList | null; error: string | null }): React.JSX.Element {
  if (!list) {
    return error ? (
      <div className="mcp-empty" role="alert">
        <p>The MCP servers could not be listed: {error}</p>
        <button type="button" className="ui-button small" onClick={() => void refreshMcp()}>
          Try again
        </button>
      </div>
    ) : (
      <p className="ui-note" aria-busy="true">
        Reading the MCP servers…
      </p>
    )
  }
  return (
    <div className="mcp-view" data-testid="mcp-view">
      <ProjectApproval list={list} />
      {list.servers.length === 0 ? (
        <div className="mcp-empty" data-testid="mcp-empty">
          <p>No MCP servers are configured.</p>
          <p className="ui-note">
            Add them to <code>mcp.json</code> in the data folder, pass <code>--mcp-config FILE</code>, or add
            a <code>.mcp.json</code> to the project, in the shape Claude Code and Cursor use:{' '}
            <code>{'{"mcpServers": {"name": {"command": "…", "args": […]}}}'}</code>.
          </p>
        </div>
      ) : (
        list.servers.map((s) => <ServerCard key={`${s.source}:${s.name}`} server={s} />)
      )}
    </div>
  )
}
