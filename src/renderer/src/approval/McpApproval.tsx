import type React from 'react'
import { mcpHintPhrases } from '../../../shared/mcp-hints'
import { AcceptRejectApproval } from './ApprovalFrame'
import { mcpArgsText, mcpDescriptionText } from './mcpCall'
import type { ApprovalAnswer, ApprovalCard } from './types'

interface McpApprovalProps {
  request: ApprovalCard<'mcp'>
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
  const { server, tool } = request.subject
  const args = mcpArgsText(request.subject.args)
  const description = mcpDescriptionText(request.subject.description)
  const hints = mcpHintPhrases(request.subject)

  return (
    <AcceptRejectApproval
      kind="mcp"
      badge="MCP tool"
      heading="Call this MCP tool?"
      preposition="as"
      tool={request.tool}
      queued={queued}
      dataKind="mcp"
      rule={request.rule}
      onResolve={onResolve}
    >
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
        {hints.length > 0 && (
          <>
            <h3 className="approval-mcp-label">
              What the server says about this tool (hints, not guarantees)
            </h3>
            <ul className="approval-mcp-hints" data-testid="approval-mcp-hints">
              {hints.map((h) => (
                <li
                  key={h.hint}
                  className={h.warn ? 'warn' : undefined}
                  data-hint={h.hint}
                  data-value={String(h.value)}
                >
                  {h.text}
                </li>
              ))}
            </ul>
          </>
        )}
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
    </AcceptRejectApproval>
  )
}
