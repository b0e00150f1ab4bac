import type React from 'react'
import { plainText, projectPrompt } from './model'
import { decideProject, useMcpUi } from './mcpState'
import type { McpList } from './types'

/**
 * The decision on the open project's `.mcp.json`: a cloned repository must not start programs by
 * itself, so its servers wait until the user has seen exactly what they would run.
 */
export function ProjectApproval({ list }: { list: McpList }): React.JSX.Element | null {
  const busy = useMcpUi((s) => Boolean(s.busy.project))
  const project = list.project
  if (!project || project.state === 'none') return null
  const prompt = projectPrompt(list)
  if (!prompt) {
    const approved = project.state === 'approved'
    return (
      <div className="mcp-project-note" data-testid="mcp-project-state" data-state={project.state}>
        <span>
          {approved
            ? 'This project’s .mcp.json is approved; its servers are listed below.'
            : 'You rejected this project’s .mcp.json; its servers do not start.'}
        </span>
        {!approved && (
          <button
            type="button"
            className="ui-button small"
            disabled={busy}
            onClick={() => void decideProject(project.hash, true)}
          >
            Approve it now
          </button>
        )}
      </div>
    )
  }
  return (
    <div
      className="mcp-project-prompt"
      role="region"
      aria-label="Project MCP servers awaiting approval"
      data-testid="mcp-project-approval"
      data-state={project.state}
    >
      <p className="mcp-project-title">{prompt.title}</p>
      {prompt.changes.length > 0 && (
        <p className="ui-note" data-testid="mcp-project-changes">
          Changed: {prompt.changes.map(plainText).join(', ')}
        </p>
      )}
      <ul className="mcp-project-servers">
        {prompt.servers.map((s) => (
          <li key={s.name}>
            <strong>{s.name}</strong>
            {s.transport && <span className="ui-note"> ({s.transport === 'http' ? 'HTTP' : 'command'})</span>}
            {s.target && <code className="mcp-target">{plainText(s.target)}</code>}
          </li>
        ))}
      </ul>
      <p className="ui-note">
        From <code>{project.path}</code>. Approve only if you trust this repository: these programs run with
        your account.
      </p>
      <div className="ui-actions">
        <button
          type="button"
          className="ui-button"
          data-testid="mcp-project-reject"
          disabled={busy}
          onClick={() => void decideProject(project.hash, false)}
        >
          Reject
        </button>
        <button
          type="button"
          className="ui-button primary"
          data-testid="mcp-project-approve"
          disabled={busy}
          onClick={() => void decideProject(project.hash, true)}
        >
          Approve and start
        </button>
      </div>
    </div>
  )
}
