import { mcpSettingsSchema, type McpProjectState, type McpSettings } from '../../shared/protocol'
import type { Store } from '../store/types'
import type { ProjectConfig } from './config'
import { describeChanges } from './project-files'

/*
 * The user's MCP choices, in the store's settings table under `mcp`: servers and
 * tools turned off, servers and tools `auto-edit` may run without asking, and the
 * project `.mcp.json` files approved (project root → sha256 over the file and the project files its
 * servers run, with those files' own digests beside it to name what changed).
 */

const KEY = 'mcp'

type SettingsStore = Pick<Store, 'getSetting' | 'setSetting'>

export function readMcpSettings(store: Pick<Store, 'getSetting'>): McpSettings {
  let raw: unknown = {}
  try {
    raw = JSON.parse(store.getSetting(KEY) ?? '{}')
  } catch {
    // An unreadable value falls back to the defaults rather than locking the user out.
  }
  const parsed = mcpSettingsSchema.safeParse(raw)
  return parsed.success ? parsed.data : mcpSettingsSchema.parse({})
}

export function updateMcpSettings(store: SettingsStore, change: (s: McpSettings) => void): McpSettings {
  const settings = readMcpSettings(store)
  change(settings)
  store.setSetting(KEY, JSON.stringify(settings))
  return settings
}

/** Adds or removes `value` from a list, keeping it sorted and without duplicates. */
export function toggle(list: string[], value: string, on: boolean): string[] {
  const set = new Set(list)
  if (on) set.add(value)
  else set.delete(value)
  return [...set].sort()
}

export const toolKey = (server: string, tool: string): string => `${server}/${tool}`

/** Off when the user turned it off, or when its entry says `"disabled": true` and the user has not turned it on. */
export function isServerEnabled(s: McpSettings, server: string, offInConfig = false): boolean {
  if (s.disabledServers.includes(server)) return false
  return !offInConfig || s.enabledServers.includes(server)
}

export function isToolEnabled(s: McpSettings, server: string, tool: string): boolean {
  return !s.disabledTools.includes(toolKey(server, tool))
}

/** A server's tool as `auto-edit` asks about it. */
export interface ToolAsked {
  server: string
  tool: string
  /** The entry's `autoApprove` list. */
  autoApprove?: readonly string[]
  /** The server marks the tool destructive. */
  destructive?: boolean
}

/** What `auto-edit` may run without asking: the whole server, or this tool (settings, or the entry's `autoApprove`). */
export function isToolAllowed(s: McpSettings, call: ToolAsked): boolean {
  const { server, tool, autoApprove = [], destructive = false } = call
  // A tool the server marks destructive is not covered by allowing the whole server: only by name.
  if (s.allowedTools.includes(toolKey(server, tool)) || autoApprove.includes(tool)) return true
  return s.allowedServers.includes(server) && !destructive
}

/**
 * Whether a project's `.mcp.json` may start its servers: only the exact file, and the exact
 * project files its servers run, that the user approved.
 */
export function projectState(s: McpSettings, repo: string, project: ProjectConfig | null): McpProjectState {
  if (!project) return 'none'
  if (s.approvedProjects[repo] === project.hash) return 'approved'
  if (s.rejectedProjects[repo] === project.hash) return 'rejected'
  if (s.approvedProjects[repo] !== undefined) return 'changed'
  return 'pending'
}

/** For a `changed` project: what differs from what was approved, one phrase per path. */
export function projectChanges(s: McpSettings, repo: string, project: ProjectConfig | null): string[] {
  if (!project || projectState(s, repo, project) !== 'changed') return []
  const approved = s.approvedProjectFiles[repo]
  // Approved before approvals covered what the servers run: the text is all that was recorded.
  if (!approved)
    return ['the files its servers run (the earlier approval covered the text of .mcp.json only)']
  return describeChanges(approved, project.files)
}

export function decideProject(
  store: SettingsStore,
  repo: string,
  project: Pick<ProjectConfig, 'hash' | 'files'>,
  approve: boolean,
): McpSettings {
  return updateMcpSettings(store, (s) => {
    if (approve) {
      s.approvedProjects[repo] = project.hash
      s.approvedProjectFiles[repo] = project.files
      delete s.rejectedProjects[repo]
    } else {
      s.rejectedProjects[repo] = project.hash
      delete s.approvedProjects[repo]
      delete s.approvedProjectFiles[repo]
    }
  })
}
