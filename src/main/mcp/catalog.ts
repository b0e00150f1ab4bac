import type { McpCatalog } from '../../shared/protocol'
import { promptCommand, type PromptInfo } from './prompts'
import type { ResourceInfo, TemplateInfo } from './resources'

/*
 * What the app's message box offers of the running servers (docs/mcp.md#in-the-app): their
 * prompts after `/` and their resources after `@`; and the `@SERVER:URI` mentions a message
 * makes, which the turn reads through the server's read_resource tool (agent/mentions.ts).
 */

/** A running server as the message box sees it. */
export interface CatalogServer {
  name: string
  prompts: readonly PromptInfo[]
  /** Empty when the model has no read_resource tool for it (no resources, or the tool is off). */
  resources: readonly ResourceInfo[]
  templates: readonly TemplateInfo[]
}

/** Server texts are untrusted: whitespace collapsed and capped, as tool descriptions are. */
const MAX_TEXT = 300
/** Resources offered per server (the list filters as the user types). */
const MAX_OFFERED = 200

function clean(text: string | undefined): string | undefined {
  const t = (text ?? '').replace(/\s+/g, ' ').trim()
  if (!t) return undefined
  return t.length > MAX_TEXT ? `${t.slice(0, MAX_TEXT - 1)}…` : t
}

export function catalogOf(servers: readonly CatalogServer[]): McpCatalog {
  return {
    prompts: servers.flatMap((s) =>
      s.prompts.map((p) => ({
        server: s.name,
        command: promptCommand(s.name, p.name),
        name: p.name,
        ...(clean(p.description) ? { description: clean(p.description) } : {}),
        arguments: (p.arguments ?? []).map((a) => ({
          name: a.name,
          ...(clean(a.description) ? { description: clean(a.description) } : {}),
          required: a.required === true,
        })),
      })),
    ),
    resources: servers.flatMap((s) => [
      ...s.resources.slice(0, MAX_OFFERED).map((r) => ({
        server: s.name,
        uri: r.uri,
        template: false,
        ...(clean(r.title ?? r.name) ? { name: clean(r.title ?? r.name) } : {}),
        ...(clean(r.description) ? { description: clean(r.description) } : {}),
        ...(r.mimeType ? { mimeType: r.mimeType } : {}),
      })),
      ...s.templates.slice(0, MAX_OFFERED).map((t) => ({
        server: s.name,
        uri: t.uriTemplate,
        template: true,
        ...(clean(t.title ?? t.name) ? { name: clean(t.title ?? t.name) } : {}),
        ...(clean(t.description) ? { description: clean(t.description) } : {}),
      })),
    ]),
  }
}

/** One `@SERVER:URI` of a message. */
export interface ResourceMention {
  server: string
  uri: string
}

/** Most resources one message attaches. */
export const MAX_MENTIONS = 10

/**
 * The `@SERVER:URI` mentions in a message, in order and once each: SERVER one of `servers`, URI
 * with a scheme (`@docs:file:///guide.md`), so an e-mail address or `@user` stays text. Punctuation
 * that ends the sentence (`… @docs:note://a.`) is not part of the URI.
 */
export function findMentions(text: string, servers: readonly string[]): ResourceMention[] {
  const out: ResourceMention[] = []
  for (const m of text.matchAll(/(?:^|\s)@([A-Za-z0-9_-]+):([A-Za-z][A-Za-z0-9+.-]*:\S+)/g)) {
    const [, server, raw] = m
    if (!servers.includes(server)) continue
    const uri = raw.replace(/[.,;:!?)\]'"]+$/, '')
    if (!out.some((o) => o.server === server && o.uri === uri)) out.push({ server, uri })
  }
  return out
}

/**
 * Why a message's mentions cannot be read as they stand, for the user (the message is not sent):
 * too many, a template not filled in, or a server that offers no resources now.
 */
export function mentionProblems(
  mentions: readonly ResourceMention[],
  reader: (server: string) => string | undefined,
  whyNot: (server: string) => string,
): string[] {
  const problems: string[] = []
  if (mentions.length > MAX_MENTIONS)
    problems.push(`The message names ${mentions.length} resources; attach at most ${MAX_MENTIONS} at a time.`)
  for (const m of mentions) {
    if (/\{[^}]*\}/.test(m.uri))
      problems.push(`@${m.server}:${m.uri} is a template: replace each {…} with a value before sending.`)
    else if (!reader(m.server)) problems.push(`@${m.server}:${m.uri} cannot be read: ${whyNot(m.server)}`)
  }
  return problems
}
