import path from 'node:path'
import type { Command } from 'commander'
import { defaultDataDir } from '../../config/paths'
import { readProjectConfig } from '../../mcp/config'
import { decideProject, projectState, readMcpSettings } from '../../mcp/settings'
import { resolveRepo } from './edit'
import { EXIT } from './exit-codes'
import { systemOpener } from '../../mcp/oauth/opener'
import { cliMcpManager, mcpConfigOption } from './mcp-start'
import { dataDirOption, openCliStore } from './session-store'
import { inertDeep, inertText } from '../../../shared/terminalText'
import { errorMessage } from '../../../shared/errors'

/*
 * `stepwise mcp list [--json]` and `stepwise mcp approve|reject` for a project's `.mcp.json`,
 * which never starts before the user approved that exact file (docs/mcp.md).
 */

interface ListOptions {
  repo?: string
  json?: boolean
  dataDir?: string
  mcpConfig?: string[]
}

/**
 * The frame of a command that talks to the configured servers: the store and the manager for the
 * project, a failure said in one line, and both closed whatever happens.
 */
async function withCliMcp(
  opts: { repo?: string; dataDir?: string; mcpConfig?: string[] },
  run: (manager: ReturnType<typeof cliMcpManager>) => Promise<number>,
): Promise<number> {
  const repo = resolveRepo(opts.repo)
  const dataDir = path.resolve(opts.dataDir ?? defaultDataDir())
  const store = openCliStore(dataDir)
  const manager = cliMcpManager({ dataDir, repo, store, mcpConfig: opts.mcpConfig })
  try {
    return await run(manager)
  } catch (err) {
    process.stderr.write(`stepwise: ${inertText(errorMessage(err))}
`)
    return EXIT.failed
  } finally {
    await manager.stop()
    store.close()
  }
}

function listServers(opts: ListOptions): Promise<number> {
  return withCliMcp(opts, async (manager) => {
    await manager.start()
    const view = manager.view()
    if (opts.json) {
      process.stdout.write(
        `${JSON.stringify({ ...view, configErrors: manager.configErrors, configWarnings: manager.configWarnings }, null, 2)}\n`,
      )
    } else {
      for (const e of manager.configErrors)
        process.stderr.write(`stepwise: MCP configuration problem: ${inertText(e)}\n`)
      for (const w of manager.configWarnings)
        process.stderr.write(`stepwise: MCP configuration: ${inertText(w)}\n`)
      if (view.servers.length === 0) process.stdout.write('No MCP servers configured.\n')
      // Names, errors and tool descriptions come from the configuration and the servers.
      for (const s of inertDeep(view.servers)) {
        process.stdout.write(`${s.name}  ${s.state}  (${s.source}, ${s.transport}) ${s.target}\n`)
        if (s.error) process.stdout.write(`  ${s.error.replace(/\n/g, '\n  ')}\n`)
        for (const t of s.tools)
          process.stdout.write(
            `  ${t.qualified}${t.readOnly ? ' [read-only]' : ''}${t.enabled ? '' : ' [disabled]'}${t.allowed ? ' [allowed]' : ''}  ${t.description.slice(0, 100)}\n`,
          )
      }
      if (view.project)
        process.stdout.write(inertText(`Project file ${view.project.path}: ${view.project.state}\n`))
    }
    return manager.configErrors.length > 0 ? EXIT.failed : EXIT.ok
  })
}

function decide(opts: { repo?: string; dataDir?: string }, approve: boolean): number {
  const repo = resolveRepo(opts.repo)
  const dataDir = path.resolve(opts.dataDir ?? defaultDataDir())
  const project = readProjectConfig(repo)
  if (!project) {
    process.stderr.write(`stepwise: ${repo} has no .mcp.json.\n`)
    return EXIT.failed
  }
  const store = openCliStore(dataDir)
  try {
    decideProject(store, repo, project, approve)
    const state = projectState(readMcpSettings(store), repo, project)
    const names = project.loaded.servers.map((s) => s.name).join(', ') || 'none'
    const covers = Object.keys(project.files).sort().join(', ')
    process.stdout.write(
      inertText(
        `${project.path} (sha256 ${project.hash.slice(0, 12)}…, servers: ${names}): ${state}\n` +
          `  covers: ${covers} — a change to any of them asks again\n`,
      ),
    )
    return EXIT.ok
  } finally {
    store.close()
  }
}

interface SignInOptions {
  repo?: string
  dataDir?: string
  mcpConfig?: string[]
  browser?: boolean
}

/** `stepwise mcp login NAME`: the browser sign-in (or client credentials), then the server's tools. */
function login(name: string, opts: SignInOptions): Promise<number> {
  const say = (line: string) => process.stderr.write(`${inertText(line)}\n`)
  return withCliMcp(opts, async (manager) => {
    const server = await manager.signIn(
      name,
      systemOpener(say, opts.browser !== false && process.env.STEPWISE_BROWSER !== 'none'),
    )
    if (server.state !== 'ready') {
      process.stderr.write(
        `stepwise: ${inertText(server.error ?? `MCP server "${name}" is ${server.state}.`)}\n`,
      )
      return EXIT.failed
    }
    process.stdout.write(
      inertText(
        `Signed in to MCP server "${name}": ${server.tools.length} tools (${server.tools.map((t) => t.name).join(', ')}).\n`,
      ),
    )
    return EXIT.ok
  })
}

function logout(name: string, opts: SignInOptions): Promise<number> {
  return withCliMcp(opts, async (manager) => {
    const had = await manager.signOut(name)
    process.stdout.write(
      had ? `Signed out of MCP server "${name}".\n` : `MCP server "${name}" was not signed in.\n`,
    )
    return EXIT.ok
  })
}

export function addMcpCommand(program: Command): void {
  const mcp = program
    .command('mcp')
    .description("MCP servers: list them, sign in to them, approve a project's .mcp.json")
  mcp
    .command('list')
    .description('Start the configured MCP servers, show their status and tools, and stop them')
    .option('--repo <dir>', 'the project folder, for its .mcp.json (default: the current directory)')
    .option('--json', 'print the list as JSON')
    .addOption(mcpConfigOption())
    .addOption(dataDirOption())
    .action(async (opts: ListOptions) => {
      process.exitCode = await listServers(opts)
    })
  mcp
    .command('login <name>')
    .description('Sign in to an MCP server (OAuth): opens the browser and waits for the answer on 127.0.0.1')
    .option('--no-browser', 'print the URL instead of opening the browser')
    .option('--repo <dir>', 'the project folder, for its .mcp.json (default: the current directory)')
    .addOption(mcpConfigOption())
    .addOption(dataDirOption())
    .action(async (name: string, opts: SignInOptions) => {
      process.exitCode = await login(name, opts)
    })
  mcp
    .command('logout <name>')
    .description("Forget an MCP server's sign-in (its tokens and registration)")
    .option('--repo <dir>', 'the project folder, for its .mcp.json (default: the current directory)')
    .addOption(mcpConfigOption())
    .addOption(dataDirOption())
    .action(async (name: string, opts: SignInOptions) => {
      process.exitCode = await logout(name, opts)
    })
  for (const [name, approve] of [
    ['approve', true],
    ['reject', false],
  ] as const)
    mcp
      .command(name)
      .description(
        approve
          ? "Let the project's .mcp.json start its servers (this exact file: a change asks again)"
          : "Keep the project's .mcp.json from starting its servers",
      )
      .option('--repo <dir>', 'the project folder (default: the current directory)')
      .addOption(dataDirOption())
      .action((opts: { repo?: string; dataDir?: string }) => {
        process.exitCode = decide(opts, approve)
      })
}
