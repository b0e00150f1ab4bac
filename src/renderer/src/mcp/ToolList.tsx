import type React from 'react'
import { useState } from 'react'
import { plainText, previewText } from './model'
import { setMcpAllowed, setMcpEnabled, toolKey, useMcpUi } from './mcpState'
import { Switch } from './Switch'
import type { McpServerView, McpToolView } from './types'

/** A server's tools: each with its switches and the server's own description of it. */
export function ToolList({ server }: { server: McpServerView }): React.JSX.Element | null {
  if (server.tools.length === 0) return null
  return (
    <ul className="mcp-tools" aria-label={`Tools of ${server.name}`}>
      {server.tools.map((tool) => (
        <ToolRow key={tool.name} server={server} tool={tool} />
      ))}
    </ul>
  )
}

function ToolRow({ server, tool }: { server: McpServerView; tool: McpToolView }): React.JSX.Element {
  const key = toolKey(server.name, tool.name)
  const busyEnable = useMcpUi((s) => Boolean(s.busy[`enable:${key}`]))
  const busyAllow = useMcpUi((s) => Boolean(s.busy[`allow:${key}`]))
  const off = !server.enabled
  return (
    <li className="mcp-tool" data-testid="mcp-tool" data-tool={tool.name} data-enabled={tool.enabled}>
      <div className="mcp-tool-head">
        <code className="mcp-tool-name" title={tool.qualified}>
          {tool.name}
        </code>
        {tool.readOnly && (
          <span className="mcp-badge muted" title="The server marks it read-only: a hint, not a permission">
            read-only
          </span>
        )}
        <span className="mcp-spacer" />
        <Switch
          label={`Enable tool ${tool.name} of ${server.name}`}
          text="On"
          checked={tool.enabled}
          disabled={off || busyEnable}
          onChange={(on) => void setMcpEnabled(server.name, on, tool.name)}
          testId="mcp-tool-enabled"
        />
        <Switch
          label={`Allow tool ${tool.name} of ${server.name} without asking`}
          text="Allow"
          checked={tool.allowed || server.allowed}
          disabled={off || server.allowed || !tool.enabled || busyAllow}
          onChange={(on) => void setMcpAllowed(server.name, on, tool.name)}
          testId="mcp-tool-allowed"
        />
      </div>
      {tool.description && <Description text={tool.description} />}
    </li>
  )
}

/**
 * A server's description of a tool: untrusted, so plain text only (React escapes it; no markdown,
 * no links), control characters dropped, and long ones folded behind "Show more".
 */
export function Description({ text }: { text: string }): React.JSX.Element {
  const [expanded, setExpanded] = useState(false)
  const preview = previewText(text)
  return (
    <div className="mcp-description" data-testid="mcp-tool-description">
      <span className="mcp-description-text">{expanded ? plainText(text) : preview.text}</span>
      {preview.more && (
        <button
          type="button"
          className="ui-link mcp-link-button"
          aria-expanded={expanded}
          onClick={() => setExpanded((e) => !e)}
        >
          {expanded ? 'Show less' : 'Show more'}
        </button>
      )}
    </div>
  )
}
