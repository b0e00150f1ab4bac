import type React from 'react'
import type { McpPromptView, McpResourceView } from '../../../shared/protocol'
import { promptUsage, resourceMention } from './mcpOffers'

/* How the message box lists the servers' prompts (after `/`) and resources (after `@`). */

/** A server prompt among the commands: its command, its arguments, the server's description. */
export function PromptLabel({ prompt }: { prompt: McpPromptView }): React.JSX.Element {
  const usage = promptUsage(prompt)
  return (
    <>
      <span className="slash-name">/{prompt.command}</span>
      {usage && <span className="slash-args"> {usage}</span>}
      <span className="slash-hint"> — {prompt.description ?? `a prompt of ${prompt.server}`}</span>
      <span className="mention-source"> MCP prompt</span>
    </>
  )
}

/** A server resource among the files: `@server:uri`, its name and description; a template says so. */
export function ResourceLabel({ resource }: { resource: McpResourceView }): React.JSX.Element {
  const about = [resource.name, resource.description].filter(Boolean).join(': ')
  return (
    <>
      <span className="slash-name">@{resourceMention(resource)}</span>
      {about && <span className="slash-hint"> — {about}</span>}
      <span className="mention-source">
        {resource.template ? ' MCP template: fill in the {…}' : ' MCP resource'}
      </span>
    </>
  )
}

/** Under the box while a prompt's arguments are typed: what each one is. */
export function PromptArgsHint({ prompt }: { prompt: McpPromptView }): React.JSX.Element {
  return (
    <p className="chat-mode-hint" data-testid="prompt-args-hint">
      <strong>/{prompt.command}</strong> (from MCP server {prompt.server}
      {prompt.arguments.length ? '): ' : ') takes no arguments.'}
      {prompt.arguments.map((a, i) => (
        <span key={a.name}>
          {i > 0 && '; '}
          <code>{a.name}=…</code>
          {a.required ? ' (required)' : ''}
          {a.description ? ` ${a.description}` : ''}
        </span>
      ))}
      {prompt.arguments.length > 0 && '. Quote a value with spaces: name="two words".'}
    </p>
  )
}
