import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { qualifiedName } from './tools'

/*
 * A server's prompts as slash commands: `/mcp__SERVER__PROMPT args` (Claude Code's spelling), where
 * args are `name=value` pairs or, without `=`, the values of the prompt's arguments in order (the
 * last one takes the rest of the line). The prompt's messages become the text sent to the model.
 */

export interface PromptInfo {
  name: string
  description?: string
  arguments?: { name: string; description?: string; required?: boolean }[]
}

export async function listPrompts(client: Client, timeout: number): Promise<PromptInfo[]> {
  if (!client.getServerCapabilities()?.prompts) return []
  const prompts: PromptInfo[] = []
  let cursor: string | undefined
  do {
    const page = await client.listPrompts(cursor ? { cursor } : undefined, { timeout })
    for (const p of page.prompts) prompts.push(p)
    cursor = page.nextCursor
  } while (cursor && prompts.length < 500)
  return prompts
}

/** `/mcp__SERVER__PROMPT rest` → its command name and the rest; null for any other text. */
export function parsePromptCommand(text: string): { command: string; rest: string } | null {
  const m = /^\/(mcp__[A-Za-z0-9_-]+)(?:\s+([\s\S]*))?$/.exec(text.trim())
  return m ? { command: m[1], rest: (m[2] ?? '').trim() } : null
}

export function promptCommand(server: string, prompt: string): string {
  return qualifiedName(server, prompt)
}

/** The prompt's arguments from the rest of the command line, or what is missing (after the command's name). */
export function promptArguments(
  prompt: PromptInfo,
  rest: string,
): { args: Record<string, string>; error?: string } {
  const declared = prompt.arguments ?? []
  const args: Record<string, string> = {}
  if (/^\w+=/.test(rest)) {
    for (const m of rest.matchAll(/(\w+)=("([^"]*)"|\S+)/g)) args[m[1]] = m[3] ?? m[2]
  } else if (rest) {
    const words = rest.split(/\s+/)
    declared.forEach((a, i) => {
      const value = i === declared.length - 1 ? words.slice(i).join(' ') : words[i]
      if (value) args[a.name] = value
    })
  }
  const missing = declared.filter((a) => a.required && !args[a.name]).map((a) => a.name)
  if (missing.length > 0)
    return {
      args,
      error: `needs ${missing.join(', ')}: write ${declared.map((a) => `${a.name}=…`).join(' ')}`,
    }
  return { args }
}

/** `prompts/get`, its messages as the text of one message (resources by their text, images named). */
export async function promptText(
  client: Client,
  name: string,
  args: Record<string, string>,
  timeout: number,
): Promise<string> {
  const result = await client.getPrompt({ name, arguments: args }, { timeout })
  return result.messages
    .map((m) => {
      const c = m.content as {
        type: string
        text?: string
        resource?: { uri: string; text?: string }
        mimeType?: string
      }
      const body =
        c.type === 'text'
          ? (c.text ?? '')
          : c.type === 'resource'
            ? `[resource ${c.resource?.uri}]\n${c.resource?.text ?? ''}`
            : `[${c.type}${c.mimeType ? ` ${c.mimeType}` : ''} not shown]`
      return m.role === 'assistant' ? `(assistant) ${body}` : body
    })
    .join('\n\n')
}

/** A running server's prompt, with the slash command that runs it. */
export interface ServerPrompt {
  server: string
  command: string
  prompt: PromptInfo
}

/** What the prompts need of a running server (mcp/connection.ts). */
interface PromptServer {
  config: { name: string }
  prompts: readonly PromptInfo[]
  getPrompt(name: string, args: Record<string, string>): Promise<string>
}

export function promptsOf(servers: readonly PromptServer[]): ServerPrompt[] {
  return servers.flatMap((c) =>
    c.prompts.map((prompt) => ({
      server: c.config.name,
      command: promptCommand(c.config.name, prompt.name),
      prompt,
    })),
  )
}

/**
 * `/mcp__SERVER__PROMPT args` → the prompt's text from its server; any other text as it is. An
 * unknown prompt or a missing argument is an error saying what to write. The CLI's task and the
 * app's message (service/mcp.ts) both go through here.
 */
export async function expandPromptCommand(servers: readonly PromptServer[], text: string): Promise<string> {
  const parsed = parsePromptCommand(text)
  if (!parsed) return text
  const prompts = promptsOf(servers)
  const found = prompts.find((p) => p.command === parsed.command)
  if (!found) {
    const known = prompts.map((p) => `/${p.command}`)
    throw new Error(
      `/${parsed.command} is not a prompt of a running MCP server${known.length ? ` (there are: ${known.join(', ')})` : ''}.`,
    )
  }
  const { args, error } = promptArguments(found.prompt, parsed.rest)
  if (error) throw new Error(`/${found.command} ${error}.`)
  return servers.find((c) => c.config.name === found.server)!.getPrompt(found.prompt.name, args)
}
