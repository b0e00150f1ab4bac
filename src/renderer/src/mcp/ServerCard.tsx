import type React from 'react'
import { useId } from 'react'
import { LogBlock } from './LogBlock'
import { plainText, sourceLabel, stateBadge, toolCount } from './model'
import { restartMcp, setMcpAllowed, setMcpEnabled, useMcpUi } from './mcpState'
import { SignInButton, SignInNotice } from './SignIn'
import { Switch } from './Switch'
import { ToolList } from './ToolList'
import type { McpServerView } from './types'

/** Servers with up to this many tools show them at once. */
const OPEN_TOOLS = 6

/** One server: where it comes from, what it runs, its state, its switches, tools and log. */
export function ServerCard({ server }: { server: McpServerView }): React.JSX.Element {
  const titleId = useId()
  const busy = useMcpUi((s) => s.busy)
  return (
    <section
      className="mcp-server"
      aria-labelledby={titleId}
      data-testid="mcp-server"
      data-server={server.name}
      data-state={server.state}
    >
      <ServerHead server={server} titleId={titleId} />
      <p className="mcp-meta">
        <span>{sourceLabel(server.source)}</span>
        <span aria-hidden="true">·</span>
        <span>{server.transport === 'http' ? 'HTTP' : 'stdio'}</span>
        <span aria-hidden="true">·</span>
        <code className="mcp-target" data-testid="mcp-target">
          {plainText(server.target)}
        </code>
      </p>
      {server.state === 'failed' && server.error && (
        <p className="mcp-error" role="status" data-testid="mcp-error">
          {plainText(server.error)}
        </p>
      )}
      <SignInNotice server={server} />
      <div className="mcp-server-row">
        {server.tools.length === 0 && <span className="ui-note">{toolCount(server)}</span>}
        <span className="mcp-spacer" />
        <Switch
          label={`Allow every tool of ${server.name} without asking`}
          text="Allow all without asking"
          checked={server.allowed}
          disabled={!server.enabled || Boolean(busy[`allow:${server.name}`])}
          onChange={(on) => void setMcpAllowed(server.name, on)}
          testId="mcp-server-allowed"
        />
      </div>
      {server.tools.length > 0 && (
        // Folded when long, so the other servers stay in sight; the count says what is inside.
        <details className="mcp-tools-block" open={server.tools.length <= OPEN_TOOLS}>
          <summary data-testid="mcp-tools-toggle">{toolCount(server)}</summary>
          <ToolList server={server} />
        </details>
      )}
      <LogBlock server={server.name} />
    </section>
  )
}

/** The server's name and state, and its switches: enabled, sign in, (re)start. */
function ServerHead({ server, titleId }: { server: McpServerView; titleId: string }): React.JSX.Element {
  const busy = useMcpUi((s) => s.busy)
  const badge = stateBadge(server.state)
  const waiting = server.state === 'awaiting-approval'
  const canRestart = server.enabled && !waiting && server.state !== 'starting'
  // A stopped server (no session has started it yet) is started by the same command.
  const restartLabel = server.state === 'stopped' ? 'Start' : 'Restart'
  return (
    <header className="mcp-server-head">
      <h3 id={titleId} className="mcp-server-name">
        {server.name}
      </h3>
      <span className={`mcp-badge ${badge.tone}`} data-testid="mcp-state">
        {badge.label}
      </span>
      {server.sandbox && (
        <span className="mcp-badge muted" title="Runs inside the command sandbox">
          sandboxed
        </span>
      )}
      <span className="mcp-spacer" />
      <Switch
        label={`Enable server ${server.name}`}
        text="Enabled"
        checked={server.enabled}
        disabled={waiting || Boolean(busy[`enable:${server.name}`])}
        onChange={(on) => void setMcpEnabled(server.name, on)}
        testId="mcp-server-enabled"
      />
      <SignInButton server={server} />
      <button
        type="button"
        className="ui-button small"
        aria-label={`${restartLabel} ${server.name}`}
        data-testid="mcp-restart"
        disabled={!canRestart || Boolean(busy[`restart:${server.name}`])}
        onClick={() => void restartMcp(server.name)}
      >
        {restartLabel}
      </button>
    </header>
  )
}
