import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Command, InvalidArgumentError, Option } from 'commander'
import { APPROVAL_POLICIES, type ApprovalPolicy, type ProviderId } from '../../../shared/protocol'
import { defaultModels } from '../../config/defaults'
import { defaultDataDir } from '../../config/paths'
import { probeSandboxSoon } from '../../sandboxing/sandbox-probe'
import { createCoreService } from '../../service/service'
import { openDataFolder } from '../../open-data-folder'
import {
  firstTokenTimeoutOption,
  idleTimeoutOption,
  maxOutputTokensOption,
  modelOptionsFromFlags,
  numCtxOption,
  resolveRepo,
  temperatureOption,
} from './edit'
import { mcpConfigOption } from './mcp-start'
import { UsageError } from './exit-codes'
import { onStopSignals } from './signals'
import { providerIds } from '../../../shared/providers'
import { errorMessage } from '../../../shared/errors'

/*
 * `stepwise serve`: the app's renderer and core in a browser, over a WebSocket on
 * loopback (docs/cli.md). The first line of output is the URL, token included.
 */

interface ServeOptions {
  repo?: string
  port: number
  host: string
  allowRemote?: boolean
  provider?: ProviderId
  model?: string
  baseUrl?: string
  numCtx?: number
  temperature?: number
  firstTokenTimeout?: number
  idleTimeout?: number
  maxOutputTokens?: number
  approve?: ApprovalPolicy
  dataDir?: string
  mcpConfig?: string[]
}

function port(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0 || n > 65_535)
    throw new InvalidArgumentError('expected a port from 0 to 65535.')
  return n
}

/** The built renderer: out/renderer beside this bundle's folder (out/main). */
function rendererDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 3; i++) {
    const candidate = path.join(dir, '..', 'renderer')
    if (fs.existsSync(path.join(candidate, 'index.html'))) return path.resolve(candidate)
    dir = path.dirname(dir)
  }
  throw new UsageError('the app is not built (no out/renderer/index.html). Run `npm run build` first.')
}

export function addServeCommand(program: Command): void {
  program
    .command('serve')
    .description('Serve the app to a browser on this machine (the desktop UI without Electron)')
    .option('--repo <dir>', 'a project folder to open at once')
    .addOption(new Option('--port <n>', 'port to listen on (0: any free port)').argParser(port).default(0))
    .addOption(new Option('--host <address>', 'address to bind').default('127.0.0.1'))
    .option(
      '--allow-remote',
      'allow binding an address other than loopback (anyone who can reach it needs the token)',
    )
    .addOption(new Option('--provider <provider>', 'model provider for new sessions').choices(providerIds()))
    .option('--model <name>', 'model for new sessions')
    .option('--base-url <url>', 'model server URL for new sessions')
    .addOption(numCtxOption())
    .addOption(temperatureOption())
    .addOption(firstTokenTimeoutOption())
    .addOption(idleTimeoutOption())
    .addOption(maxOutputTokensOption())
    .addOption(
      new Option('--approve <policy>', 'approval policy for new sessions').choices(APPROVAL_POLICIES),
    )
    .addOption(
      new Option(
        '--data-dir <dir>',
        'where sessions are stored (default: $STEPWISE_HOME, else the OS app-data folder)',
      ),
    )
    .addOption(mcpConfigOption())
    .action(async (opts: ServeOptions) => {
      process.exitCode = await runServe(opts)
    })
}

export async function runServe(opts: ServeOptions): Promise<number> {
  const startProject = opts.repo ? resolveRepo(opts.repo) : undefined
  const dataDir = path.resolve(opts.dataDir ?? defaultDataDir())
  // bwrap's runs go on while the data folder opens and the host starts listening.
  const sandboxProbe = probeSandboxSoon()
  const { store, notices } = openDataFolder(dataDir, { backup: true })
  const service = createCoreService({
    store,
    dataDir,
    host: 'web',
    notices,
    startProject,
    mcpConfigs: opts.mcpConfig,
    defaults: {
      ...defaultModels(process.env, store, opts, opts.approve),
      // The flags win over the stored settings for this run's sessions.
      ...modelOptionsFromFlags(opts),
    },
  })
  let host
  try {
    // Loaded here, not with the CLI: the web host and its WebSocket library (~60 ms to load)
    // serve no other command.
    const { startWebHost } = await import('../web/server')
    host = await startWebHost({
      service,
      rendererDir: rendererDir(),
      host: opts.host,
      port: opts.port,
      allowRemote: opts.allowRemote,
    })
  } catch (err) {
    await service.close()
    store.close()
    throw new UsageError(errorMessage(err))
  }
  process.stdout.write(`${host.url}\n`)
  if (opts.allowRemote && !['127.0.0.1', 'localhost', '::1'].includes(opts.host))
    process.stderr.write(
      `stepwise: WARNING: listening on ${opts.host}: anyone who can reach this address and has the token can run the agent on your files.\n`,
    )
  const sandbox = await sandboxProbe
  // One line on what confines commands here, from a real probe; the fix when nothing does.
  process.stderr.write(`stepwise: commands: ${sandbox.summary}\n`)
  if (!sandbox.available)
    process.stderr.write(
      `stepwise: ${sandbox.reason} Without it, commands are refused under auto-edit and full-auto, and asked for one by one under ask.\n`,
    )
  process.stderr.write('stepwise: serving; press Ctrl+C to stop.\n')
  await new Promise<void>((resolve) => {
    // SIGINT, SIGTERM and SIGHUP alike: running turns are stopped and their end recorded below.
    const stopListening = onStopSignals(() => {
      stopListening()
      resolve()
    })
  })
  process.stderr.write('stepwise: stopping…\n')
  await host.close()
  await service.close()
  store.close()
  return 0
}
