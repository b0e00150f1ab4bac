import { z } from 'zod'
import {
  isCommandName,
  parseCommand,
  type CommandInput,
  type CommandName,
  type CommandOutput,
  type HostMessage,
} from '../../shared/protocol'
import { readApiKey, resolveApiKey, writeApiKey, credentialsFile } from '../config/credentials'
import type { Store } from '../store/types'
import { probeSandboxSoon } from '../sandboxing/sandbox-probe'
import { shutdownLiveTraces } from '../telemetry/live'
import { explainStoreError } from '../store/failures'
import { onIndexProgress } from '../session/code-context'
import { contextBaseline } from './baseline'
import { compactOnRequest } from './compact'
import type { KeyStore, ModelDefaults, ServiceContext } from './context'
import { createMcpHub } from './mcp'
import { checkModel, modelCatalog } from './model-catalog'
import { resolveModel } from './model-resolve'
import { listModels, pullModel, setCredential } from './models'
import { setProviderBaseUrl } from './provider-settings'
import { appInfo, completeFolder, indexStatus, openProject, projectFiles, rebuildIndex } from './projects'
import { enqueue, flushQueue, removeQueued, updateQueued } from './queue-commands'
import { SessionRuntime } from './sessions'
import { listRules, removeRule } from './rules'
import { reviewInService, startReview } from './review'
import { readSettings, writeSettings } from './settings'
import { TimeTravel } from './timetravel'
import type { CoreService, InvokeReply } from './types'
import { errorMessage } from '../../shared/errors'

export type Handler<C extends CommandName> = (
  input: CommandInput<C>,
) => Promise<CommandOutput<C>> | CommandOutput<C>
export type Handlers = { [C in CommandName]: Handler<C> }

/** The handler of `command`, given its input as the command's schema parsed it. */
async function runCommand<C extends CommandName>(
  handlers: Handlers,
  command: C,
  input: CommandInput<C>,
): Promise<CommandOutput<C>> {
  const handler: Handler<C> = handlers[command]
  return handler(input)
}

export interface CoreServiceOptions {
  store: Store
  dataDir: string
  host: 'electron' | 'web' | 'cli'
  defaults: ModelDefaults
  /** A project to open when the app starts (`stepwise serve --repo`). */
  startProject?: string
  /** API keys: the OS keychain on the desktop; a 0600 file beside the database otherwise. */
  keys?: KeyStore
  /** What the host has to say once at start (its data folder moved); shown by the app. */
  notices?: string[]
  /** Host-only commands (the native folder picker); the rest answer "not available here". */
  hostHandlers?: Partial<Pick<Handlers, 'fs/pick-folder'>>
  /** `stepwise serve --mcp-config FILE` (repeatable): MCP servers beside the data folder's mcp.json. */
  mcpConfigs?: readonly string[]
}

/** API keys in the credentials file beside the database, the environment first. */
export function fileKeyStore(dataDir: string, env: NodeJS.ProcessEnv = process.env): KeyStore {
  return {
    get: (provider) => resolveApiKey(env, dataDir, provider) ?? readApiKey(dataDir, provider),
    set: (provider, key) => writeApiKey(dataDir, provider, key),
    storage: `Kept in plain text in ${credentialsFile(dataDir)}, a file only your user can read (0600); it is never shown again.`,
  }
}

/**
 * The core behind every app host: validates each command against the shared
 * schemas (the renderer is untrusted), runs it, and fans events and notices out
 * to every subscriber. Hosts only carry messages.
 */
export function createCoreService(opts: CoreServiceOptions): CoreService & {
  sessions: SessionRuntime
  /** A review in its own session, in process (`stepwise review`); the app's is `review/start`. */
  review(options: Parameters<typeof reviewInService>[2]): ReturnType<typeof reviewInService>
} {
  const listeners = new Set<(message: HostMessage) => void>()
  const broadcast = (message: HostMessage): void => {
    for (const listener of listeners) {
      try {
        listener(message)
      } catch (err) {
        console.error('[stepwise] a host listener failed', err)
      }
    }
  }
  // Its database and keys stay out of every sandboxed command's sight: each session's start
  // binds the store's folder (session/data-folder.ts).
  const ctx: ServiceContext = {
    store: opts.store,
    dataDir: opts.dataDir,
    host: opts.host,
    keys: opts.keys ?? fileKeyStore(opts.dataDir),
    defaults: opts.defaults,
    startProject: opts.startProject,
    startupNotices: [...(opts.notices ?? [])],
    broadcast,
  }
  for (const notice of opts.notices ?? []) console.error(`[stepwise] ${notice}`)
  // What the sandbox holds here, probed now off this thread: the app's first `app/info` and a
  // session's first command find it answered instead of waiting on bwrap.
  void probeSandboxSoon()
  const sessions = new SessionRuntime(ctx)
  // Code index builds run in the background; the status bar shows how far they got.
  const stopIndexProgress = onIndexProgress((root, p) =>
    broadcast({ type: 'host.index-progress', root, ...p }),
  )
  // Sessions deleted before the last quit whose Undo window has passed.
  sessions.purgeExpired()
  const travel = new TimeTravel(ctx, sessions)
  const mcp = createMcpHub(ctx, { cliConfigs: opts.mcpConfigs })
  const pickFolder = opts.hostHandlers?.['fs/pick-folder']

  const handlers = commandHandlers({ ctx, sessions, travel, mcp, pickFolder })

  return {
    sessions,
    review: (options) => reviewInService(ctx, sessions, options),
    async answer(command: unknown, input: unknown): Promise<InvokeReply> {
      if (typeof command !== 'string' || !isCommandName(command))
        return { ok: false, error: `Unknown command ${JSON.stringify(command)}.` }
      let parsed: CommandInput<typeof command>
      try {
        parsed = parseCommand(command, input)
      } catch (error) {
        const detail = error instanceof z.ZodError ? z.prettifyError(error) : String(error)
        return { ok: false, error: `Invalid input for ${command}: ${detail}` }
      }
      try {
        return { ok: true, output: await runCommand(handlers, command, parsed) }
      } catch (caught) {
        const error = explainStoreError(caught)
        return { ok: false, error: errorMessage(error) }
      }
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    async close() {
      stopIndexProgress()
      await sessions.close()
      await mcp.close()
      listeners.clear()
      // The app is quitting: open session spans end and go out (docs/traces.md), briefly.
      await shutdownLiveTraces()
    },
  }
}

/** What the commands act on: the service's context and the parts built on it. */
interface CommandParts {
  ctx: ServiceContext
  sessions: SessionRuntime
  travel: TimeTravel
  mcp: ReturnType<typeof createMcpHub>
  /** The host's folder picker, when it has one. */
  pickFolder: Handlers['fs/pick-folder'] | undefined
}

/** Every command's handler: one line each, the work is in the modules named. */
function commandHandlers({ ctx, sessions, travel, mcp, pickFolder }: CommandParts): Handlers {
  return {
    'app/info': () => appInfo(ctx, Boolean(pickFolder)),
    'project/open': async (input) => {
      const opened = await openProject(ctx, input)
      mcp.setProject(opened.repo)
      return opened
    },
    'project/files': (input) => projectFiles(input),
    'context/baseline': (input) => contextBaseline(ctx, input),
    'fs/complete': (input) => completeFolder(input),
    'fs/pick-folder': async (input) => {
      if (!pickFolder) throw new Error('This host has no folder picker: type the folder path instead.')
      return pickFolder(input)
    },
    'session/create': (input) => sessions.create(input),
    'session/list': (input) => sessions.list(input),
    'session/events': (input) => sessions.events(input),
    'session/configure': (input) => sessions.configure(input),
    'session/delete': (input) => sessions.delete(input),
    'session/restore': (input) => sessions.restore(input),
    'session/rename': (input) => sessions.rename(input),
    'session/compact': (input) => compactOnRequest(ctx, sessions, input),
    'turn/start': (input) =>
      sessions.startTurn(input.sessionId, input.text, { untilGreen: input.untilGreen }),
    'turn/retry': (input) => sessions.startTurn(input.sessionId, undefined),
    'turn/interrupt': (input) => sessions.interrupt(input),
    'queue/add': (input) => enqueue(sessions, input),
    'queue/update': (input) => updateQueued(sessions, input),
    'queue/remove': (input) => removeQueued(sessions, input),
    'queue/flush': (input) => flushQueue(sessions, input),
    'approval/resolve': (input) => sessions.resolveApproval(input),
    'rules/list': (input) => listRules(ctx, input),
    'rules/remove': (input) => removeRule(ctx, input),
    'session/undo': (input) => travel.undo(input),
    'session/rewind': (input) => travel.rewind(input),
    'session/fork': (input) => travel.fork(input),
    'session/files-at': (input) => travel.filesAt(input),
    'session/file-at': (input) => travel.fileAt(input),
    'models/list': (input) => listModels(ctx, input),
    'models/pull': (input) => pullModel(ctx, input),
    'models/check': (input) => checkModel(ctx, input),
    'credentials/set': (input) => setCredential(ctx, input),
    'models/catalog': (input) => modelCatalog(ctx, input),
    'models/resolve': (input) => resolveModel(ctx, input),
    'providers/set': (input) => setProviderBaseUrl(ctx, input.provider, input.baseUrl),
    'settings/get': () => readSettings(ctx.store),
    'settings/set': (input) => writeSettings(ctx.store, input),
    'review/start': (input) => startReview(ctx, sessions, input),
    'index/status': (input) => indexStatus(ctx, input),
    'index/rebuild': (input) => rebuildIndex(ctx, input),
    ...mcp.handlers(),
  }
}
