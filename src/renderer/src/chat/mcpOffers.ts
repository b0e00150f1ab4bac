import fuzzysort from 'fuzzysort'
import { useEffect, useState } from 'react'
import type { McpCatalog, McpPromptView, McpResourceView } from '../../../shared/protocol'
import { getApi } from '../state/store'

/*
 * The running MCP servers' offers in the message box (docs/mcp.md#in-the-app): their prompts
 * beside the built-in commands after `/` (`/mcp__SERVER__PROMPT args`, expanded by the core when
 * sent), their resources beside the files after `@` (`@SERVER:URI`, read and attached by the core).
 */

const EMPTY: McpCatalog = { prompts: [], resources: [] }

/** The open project's `mcp/catalog`, read again when a server's state or lists change. */
export function useMcpCatalog(repo: string | undefined): McpCatalog {
  const [catalog, setCatalog] = useState<McpCatalog>(EMPTY)
  useEffect(() => {
    if (!repo) return
    let live = true
    // Quiet: a host without MCP, or none configured, just offers nothing.
    const read = () =>
      getApi()
        .invoke('mcp/catalog', {})
        .then(
          (c) => live && setCatalog(c),
          () => live && setCatalog(EMPTY),
        )
    void read()
    const off = getApi().onEvent((m) => {
      if (m.type === 'host.mcp-status') void read()
    })
    return () => {
      live = false
      off()
    }
  }, [repo])
  return catalog
}

/** Prompts whose command starts with the query, then those that contain it (case aside). */
export function matchPrompts(prompts: readonly McpPromptView[], query: string): McpPromptView[] {
  const q = query.toLowerCase()
  const starts = prompts.filter((p) => p.command.toLowerCase().startsWith(q))
  const contains = prompts.filter((p) => !starts.includes(p) && p.command.toLowerCase().includes(q))
  return [...starts, ...contains]
}

/** How the arguments are written: `topic=… [tone=…]` (optional ones in brackets). */
export function promptUsage(prompt: McpPromptView): string {
  return prompt.arguments.map((a) => (a.required ? `${a.name}=…` : `[${a.name}=…]`)).join(' ')
}

export function needsPromptArgs(prompt: McpPromptView): boolean {
  return prompt.arguments.some((a) => a.required)
}

/** The prompt the message is running (`/mcp__x__y …` with the caret past the name), for its argument hint. */
export function promptBeingRun(prompts: readonly McpPromptView[], text: string): McpPromptView | undefined {
  const m = /^\/(mcp__\S+)\s/.exec(text)
  return m ? prompts.find((p) => p.command === m[1]) : undefined
}

/** What a mention of the resource writes after `@`. */
export function resourceMention(resource: McpResourceView): string {
  return `${resource.server}:${resource.uri}`
}

/** Best resource matches for the `@` query: fuzzy on `server:uri` and the name. */
export function matchResources(
  resources: readonly McpResourceView[],
  query: string,
  limit = 6,
): McpResourceView[] {
  if (!query) return resources.slice(0, limit)
  return fuzzysort
    .go(query, resources, { keys: [resourceMention, (r) => r.name ?? ''], limit, threshold: 0.2 })
    .map((r) => r.obj)
}

/** For a template, where its first `{…}` placeholder sits in the inserted mention (to select it). */
export function placeholderIn(mention: string): { start: number; end: number } | undefined {
  const m = /\{[^}]*\}/.exec(mention)
  return m ? { start: m.index, end: m.index + m[0].length } : undefined
}
