import { mcpSettingsSchema, type McpProjectState, type McpSettings } from '../../shared/protocol'
import type { Store } from '../store/types'
import type { ProjectConfig } from './config'

/*
 * The user's MCP choices, in the store's settings table under `mcp`: servers and
 * tools turned off, servers and tools `auto-edit` may run without asking, and the
 * project `.mcp.json` files approved (project root → sha256 of the approved text).
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

export function isServerEnabled(s: McpSettings, server: string): boolean {
  return !s.disabledServers.includes(server)
}

export function isToolEnabled(s: McpSettings, server: string, tool: string): boolean {
  return !s.disabledTools.includes(toolKey(server, tool))
}

/** What `auto-edit` may run without asking: the whole server, or this tool. */
export function isToolAllowed(s: McpSettings, server: string, tool: string): boolean {
  return s.allowedServers.includes(server) || s.allowedTools.includes(toolKey(server, tool))
}

/** Whether a project's `.mcp.json` may start its servers: only the exact text the user approved. */
export function projectState(s: McpSettings, repo: string, project: ProjectConfig | null): McpProjectState {
  if (!project) return 'none'
  if (s.approvedProjects[repo] === project.hash) return 'approved'
  if (s.rejectedProjects[repo] === project.hash) return 'rejected'
  if (s.approvedProjects[repo] !== undefined) return 'changed'
  return 'pending'
}

export function decideProject(
  store: SettingsStore,
  repo: string,
  hash: string,
  approve: boolean,
): McpSettings {
  return updateMcpSettings(store, (s) => {
    if (approve) {
      s.approvedProjects[repo] = hash
      delete s.rejectedProjects[repo]
    } else {
      s.rejectedProjects[repo] = hash
      delete s.approvedProjects[repo]
    }
  })
}
