import type React from 'react'
import { useId, useState } from 'react'
import { ApprovalActions } from './ApprovalActions'
import { mcpArgsText, mcpDescriptionText } from './mcpCall'
import type { ApprovalAnswer, McpApprovalRequest } from './types'
import { useApprovalKeys } from './useApprovalKeys'
import { useResolveOnce } from './useResolveOnce'

interface McpApprovalProps {
  request: McpApprovalRequest
  queued: number
  onResolve(answer: ApprovalAnswer): void
}

function hiddenNote(hidden: number): string {
  return `… ${hidden.toLocaleString('en')} more characters not shown`
}

/**
 * A call to a tool of an MCP server: which server, which tool, the exact arguments, and what the
 * server says the tool does (its words, not ours: shown as plain text and labelled so).
 */
export function McpApproval({ request, queued, onResolve }: McpApprovalProps): React.JSX.Element {
  const [rejecting, setRejecting] = useState(false)
  const [resolved, resolve] = useResolveOnce(onResolve)
  const titleId = useId()
  const { server, tool } = request.mcp
  const args = mcpArgsText(request.mcp.args)
  const description = mcpDescriptionText(request.mcp.description)

  useApprovalKeys(
    { y: () => resolve({ decision: 'accept' }), n: () => setRejecting(true) },
    !resolved && !rejecting,
  )

  return (
    <section
      className="approval-panel"
      aria-labelledby={titleId}
      data-testid="approval-panel"
      data-kind="mcp"
    >
      <header className="approval-header">
        <div className="approval-title">
          <span className="approval-badge approval-badge--mcp">MCP tool</span>
          <h2 id={titleId} className="approval-heading">
            Call this MCP tool?
          </h2>
        </div>
        <div className="approval-meta">
          <span>
            as <code>{request.tool}</code>
          </span>
          {queued > 0 && <span data-testid="approval-queue">1 of {queued + 1}</span>}
        </div>
      </header>
      <div className="approval-mcp-body">
        <dl className="approval-mcp-fields">
          <div>
            <dt>Server</dt>
            <dd>
              <code data-testid="approval-mcp-server">{server}</code>
            </dd>
          </div>
          <div>
            <dt>Tool</dt>
            <dd>
              <code data-testid="approval-mcp-tool">{tool}</code>
            </dd>
          </div>
        </dl>
        <h3 className="approval-mcp-label">Arguments</h3>
        <pre className="approval-command approval-mcp-args" aria-label="Arguments" tabIndex={0}>
          <code data-testid="approval-mcp-args">{args.text}</code>
          {args.hidden > 0 && <span className="approval-mcp-cut">{`\n${hiddenNote(args.hidden)}`}</span>}
        </pre>
        {description && (
          <>
            <h3 className="approval-mcp-label">What the server says this tool does</h3>
            <p className="approval-mcp-description" data-testid="approval-mcp-description">
              {description.text}
              {description.hidden > 0 && (
                <span className="approval-mcp-cut"> {hiddenNote(description.hidden)}</span>
              )}
            </p>
          </>
        )}
      </div>
      <ApprovalActions
        acceptLabel="Approve (Y)"
        resolved={resolved}
        rejecting={rejecting}
        onRejectingChange={setRejecting}
        onAccept={() => resolve({ decision: 'accept' })}
        onReject={(reason) => resolve(reason ? { decision: 'reject', reason } : { decision: 'reject' })}
      />
    </section>
  )
}
