import path from 'node:path'
import { Option } from 'commander'
import { McpManager } from '../../mcp/manager'
import { systemOpener } from '../../mcp/oauth/opener'
import { terminalElicit } from './elicit-prompt'
import type { Store } from '../../store/types'
import { inertText } from '../../../shared/terminalText'

/*
 * MCP servers for a CLI run (docs/mcp.md): `--mcp-config FILE` (repeatable) on edit, review
 * and serve, and starting the servers before the session with what went wrong on stderr.
 */

const collect = (value: string, previous: string[] = []): string[] => [...previous, path.resolve(value)]

export const mcpConfigOption = (): Option =>
  new Option(
    '--mcp-config <file>',
    'MCP servers to use, in the {"mcpServers": {…}} format (repeatable; adds to the data folder\'s mcp.json)',
  ).argParser(collect)

/** For tests and slow machines: how long a server may take to start. */
function startTimeoutMs(env: NodeJS.ProcessEnv): number | undefined {
  const n = Number(env.STEPWISE_MCP_START_TIMEOUT_MS)
  return Number.isFinite(n) && n > 0 ? n : undefined
}

export function cliMcpManager(opts: {
  dataDir: string
  repo?: string
  store: Pick<Store, 'getSetting' | 'setSetting'>
  mcpConfig?: string[]
}): McpManager {
  return new McpManager({
    dataDir: opts.dataDir,
    repo: opts.repo,
    store: opts.store,
    cliConfigs: opts.mcpConfig ?? [],
    startTimeoutMs: startTimeoutMs(process.env),
    // A server's questions are asked on the terminal (declined, and said, without one).
    elicit: terminalElicit({ openUrl: systemOpener((line) => process.stderr.write(`${inertText(line)}\n`)) }),
  })
}

/** What the user should know before a run: bad config files, a project file waiting, servers that failed. */
export function mcpNotices(manager: McpManager, repo: string | undefined): string[] {
  const notices = manager.configErrors.map((e) => `MCP configuration problem: ${e}`)
  for (const w of manager.configWarnings) notices.push(`MCP configuration: ${w}`)
  const project = manager.view().project
  if (project && (project.state === 'pending' || project.state === 'changed'))
    notices.push(
      `${project.path} declares MCP servers (${project.servers.join(', ') || 'none'}) that are not started until you approve this file${project.state === 'changed' ? ` again (changed since you approved it: ${project.changes.join(', ')})` : ''}: stepwise mcp approve${repo ? ` --repo ${repo}` : ''}`,
    )
  for (const failure of manager.failures()) notices.push(`${failure} The session goes on without its tools.`)
  return notices
}

/** Starts the MCP servers for a CLI run and says what went wrong; null when none is configured. */
export async function startCliMcp(opts: {
  dataDir: string
  repo: string
  store: Store
  mcpConfig?: string[]
}): Promise<McpManager> {
  const manager = cliMcpManager(opts)
  await manager.start()
  for (const notice of mcpNotices(manager, opts.repo))
    process.stderr.write(`stepwise: ${inertText(notice)}\n`)
  return manager
}
