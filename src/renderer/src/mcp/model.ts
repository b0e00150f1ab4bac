import type { McpList, McpProjectView, McpServerState, McpServerView } from './types'
import { strippedText } from '../../../shared/terminalText'

/** Pure helpers of the MCP view: what each state, source and prompt reads as. */

export type BadgeTone = 'ok' | 'busy' | 'error' | 'warn' | 'muted'

const STATE_BADGES: Record<McpServerState, { label: string; tone: BadgeTone }> = {
  ready: { label: 'ready', tone: 'ok' },
  starting: { label: 'starting', tone: 'busy' },
  failed: { label: 'failed', tone: 'error' },
  'needs-sign-in': { label: 'needs sign-in', tone: 'warn' },
  'awaiting-approval': { label: 'awaiting approval', tone: 'warn' },
  disabled: { label: 'disabled', tone: 'muted' },
  stopped: { label: 'stopped', tone: 'muted' },
}

export function stateBadge(state: McpServerState): { label: string; tone: BadgeTone } {
  return STATE_BADGES[state]
}

const SOURCES: Record<McpServerView['source'], string> = {
  user: 'user mcp.json',
  cli: '--mcp-config',
  project: 'project .mcp.json',
}

export function sourceLabel(source: McpServerView['source']): string {
  return SOURCES[source]
}

/** Shown before "Show more": a server's description is untrusted and may be long. */
export const DESCRIPTION_PREVIEW = 240

/**
 * The part of an untrusted description shown at first: cut at a word boundary near `limit`
 * (never mid-word when a space is close), with whether there is more. Control characters other
 * than newlines and tabs are dropped, so a server cannot smuggle terminal codes or bidi tricks.
 */
export function previewText(text: string, limit = DESCRIPTION_PREVIEW): { text: string; more: boolean } {
  const clean = plainText(text)
  if (clean.length <= limit) return { text: clean, more: false }
  const cut = clean.slice(0, limit)
  const space = cut.lastIndexOf(' ')
  const end = space > limit * 0.8 ? space : limit
  return { text: `${cut.slice(0, end).trimEnd()}…`, more: true }
}

/** Untrusted text made safe to show as plain text: the terminal rule's characters dropped. */
export const plainText = strippedText

/** Whether the project's `.mcp.json` waits for the user's decision. */
export function needsDecision(project: McpProjectView | null): project is McpProjectView {
  return project !== null && (project.state === 'pending' || project.state === 'changed')
}

export interface ProjectPrompt {
  title: string
  /** Each server the file would start, with the command line or URL it names. */
  servers: { name: string; target: string; transport: McpServerView['transport'] | null }[]
  /** When it changed: what changed since the approval (`tools/mcp-server.sh (changed)`). */
  changes: string[]
}

/** The approval prompt for a project's `.mcp.json`, naming what approving it would start. */
export function projectPrompt(list: McpList): ProjectPrompt | null {
  const project = list.project
  if (!needsDecision(project)) return null
  const servers = project.servers.map((name) => {
    const view = list.servers.find((s) => s.source === 'project' && s.name === name)
    return { name, target: view?.target ?? '', transport: view?.transport ?? null }
  })
  const count = servers.length === 1 ? '1 MCP server' : `${servers.length} MCP servers`
  const title =
    project.state === 'changed'
      ? `This project's .mcp.json or a file its servers run changed since you approved it. Approving it starts ${count}:`
      : `This project's .mcp.json would start ${count}:`
  return { title, servers, changes: project.state === 'changed' ? project.changes : [] }
}

/** The toast when a project with an undecided `.mcp.json` opens. */
export function pendingToastText(list: McpList): string | null {
  const project = list.project
  if (!needsDecision(project)) return null
  const names = project.servers.join(', ')
  const what = project.state === 'changed' ? 'changed and wants to start' : 'wants to start'
  return `This project's .mcp.json ${what} ${project.servers.length === 1 ? 'a server' : 'servers'} (${names}). Nothing runs until you approve it.`
}

/** One line for the settings dialog: how many servers, how many ready, what waits. */
export function summaryLine(list: McpList | null): string {
  if (!list) return 'Servers from your mcp.json, --mcp-config and the project’s .mcp.json.'
  const total = list.servers.length
  if (total === 0) return 'No MCP servers configured.'
  const ready = list.servers.filter((s) => s.state === 'ready').length
  const failed = list.servers.filter((s) => s.state === 'failed').length
  const parts = [`${total} server${total === 1 ? '' : 's'}`, `${ready} ready`]
  if (failed) parts.push(`${failed} failed`)
  if (needsDecision(list.project)) parts.push('project file awaits approval')
  return parts.join(' · ')
}

/** Tools a server offers, the ones switched off counted apart. */
export function toolCount(server: McpServerView): string {
  const n = server.tools.length
  if (n === 0) return server.state === 'ready' ? 'no tools' : 'tools appear once it is ready'
  const off = server.tools.filter((t) => !t.enabled).length
  return `${n} tool${n === 1 ? '' : 's'}${off ? `, ${off} off` : ''}`
}

/** The last `maxLines` lines of a log, and how many were left out above them. */
export function logTail(text: string, maxLines = 200): { text: string; omitted: number } {
  const lines = plainText(text).replace(/\n$/, '').split('\n')
  if (lines.length <= maxLines) return { text: lines.join('\n'), omitted: 0 }
  return { text: lines.slice(-maxLines).join('\n'), omitted: lines.length - maxLines }
}
