import path from 'node:path'
import { Command, Option } from 'commander'
import {
  APPROVAL_POLICIES,
  isHostNotice,
  type ApprovalPolicy,
  type ProviderId,
} from '../../../shared/protocol'
import { defaultModels, withModelRef } from '../../config/defaults'
import { defaultDataDir } from '../../config/paths'
import { createCoreService } from '../../service/service'
import { ServiceError } from '../../service/sessions'
import { dailyBackup } from '../../open-data-folder'
import { closeSnapshotters } from '../../session/start'
import {
  approverFor,
  exitCodeFor,
  firstTokenTimeoutOption,
  followUp,
  idleTimeoutOption,
  maxOutputTokensOption,
  modelOptionsFromFlags,
  type ModelFlags,
} from './edit'
import { EXIT, UsageError } from './exit-codes'
import { humanRenderer, jsonRenderer } from './render'
import { dataDirOption, requireSession, openCliStore } from './session-store'
import { onStopSignals } from './signals'
import { providerIds } from '../../../shared/providers'

/**
 * `stepwise sessions continue ID "message"` (and `stepwise edit --resume ID "message"`): the next
 * turn of a stored chat, run through the same service the app drives (service/sessions.ts), in
 * this process. Its life cycle and exit codes are `edit`'s: the same renderer, the same stop
 * signals, 0 done / 3 step limit / 4 model / 1 failed / 130 interrupted.
 */

export interface ContinueOptions extends ModelFlags {
  provider?: ProviderId
  model?: string
  baseUrl?: string
  /** Switches the session's policy (recorded, as the app's switch is); else the session keeps its own. */
  approve?: ApprovalPolicy
  untilGreen?: boolean
  json?: boolean
  dataDir?: string
}

export function addContinueCommand(sessions: Command): void {
  sessions
    .command('continue')
    .description("Continue a chat with the next message (as the app's message box does)")
    .argument('<id>', 'session id (a unique prefix is enough)')
    .argument('<message>', 'what to tell the agent next')
    .addOption(
      new Option('--provider <provider>', 'switch the session to this provider').choices(providerIds()),
    )
    .option('--model <name>', 'switch the session to this model')
    .option('--base-url <url>', 'model server URL for the switched model')
    .addOption(
      new Option(
        '--approve <policy>',
        "switch the session's approval policy (default: the session's own)",
      ).choices(APPROVAL_POLICIES),
    )
    .addOption(firstTokenTimeoutOption())
    .addOption(idleTimeoutOption())
    .addOption(maxOutputTokensOption())
    .option('--until-green', 'when the model says it is done, run build and tests and send failures back')
    .option('--json', 'print every event as one JSON line on stdout')
    .addOption(dataDirOption())
    .action(async (id: string, message: string, opts: ContinueOptions) => {
      process.exitCode = await runContinue(id, message, opts)
    })
}

export async function runContinue(id: string, message: string, opts: ContinueOptions): Promise<number> {
  if (!message.trim()) throw new UsageError('the message is empty: say what the agent should do next.')
  const dataDir = path.resolve(opts.dataDir ?? defaultDataDir())
  const store = openCliStore(dataDir)
  const renderer = opts.json ? jsonRenderer(process.stdout) : humanRenderer(process.stdout, process.stderr)
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY)
  let service: ReturnType<typeof createCoreService> | undefined
  try {
    const row = requireSession(store, id)
    if (row.status === 'running')
      throw new UsageError(
        `session ${row.id} is running a turn in a live Stepwise process: wait for it to end, or stop it first.`,
      )
    const flags = modelOptionsFromFlags(opts)
    service = createCoreService({
      store,
      dataDir,
      host: 'cli',
      defaults: { ...defaultModels(process.env, store), ...flags },
    })
    const sessions = service.sessions
    // A switch the flags ask for is recorded as the app's switch is; the same value is no switch.
    const current = sessions.liveSession(row.id).config
    // `--model openai-chat:NAME` switches provider too, as `/model` does in the app.
    opts = withModelRef(opts)
    const change = {
      provider: opts.provider !== current.provider ? opts.provider : undefined,
      model: opts.model !== current.model ? opts.model : undefined,
      baseUrl: opts.baseUrl !== current.baseUrl ? opts.baseUrl : undefined,
      approvalPolicy: opts.approve !== current.policy ? opts.approve : undefined,
    }
    if (Object.values(change).some((v) => v !== undefined))
      sessions.configure({ sessionId: row.id, ...change })
    const approver = approverFor(sessions.liveSession(row.id).config.policy, interactive, renderer)
    const unsubscribe = service.subscribe((m) => {
      if (!isHostNotice(m) && m.sessionId === row.id) renderer.onEvent(m)
    })
    const stopListening = onStopSignals(() => sessions.interrupt({ sessionId: row.id }), {
      beforeNotice: () => renderer.pause(),
    })
    try {
      const { outcome } = await sessions.beginTurn(row.id, message, {
        untilGreen: opts.untilGreen,
        approver,
        audience: 'cli',
      })
      const ended = await outcome
      if (!opts.json) process.stdout.write(followUp(row.id, opts.dataDir))
      if (!ended) return EXIT.failed
      if (opts.json && ended.reason === 'error' && ended.message)
        process.stderr.write(`stepwise: ${ended.message}\n`)
      return exitCodeFor(ended)
    } finally {
      stopListening()
      unsubscribe()
    }
  } catch (err) {
    if (err instanceof ServiceError) throw new UsageError(err.message)
    throw err
  } finally {
    renderer.close()
    await service?.close()
    // Nothing this run opened may outlive it: the snapshotter's watches close before the database.
    closeSnapshotters(store)
    await dailyBackup(store, dataDir)
    store.close()
  }
}
