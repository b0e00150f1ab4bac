import path from 'node:path'
import type { Command } from 'commander'
import type { ProviderId, StepwiseEvent } from '../../../shared/protocol'
import { InvalidStepError } from '../../agent/resume'
import { defaultDataDir } from '../../config/paths'
import { ProviderError } from '../../providers/types'
import { compactSession } from '../../session/compact'
import { resolveProviderConfig } from './edit'
import { EXIT, UsageError } from './exit-codes'
import { dataDirOption, requireSession, openCliStore } from './session-store'
import { inertText } from '../../../shared/terminalText'
import { envBaseUrl } from '../../config/provider-env'
import { errorMessage } from '../../../shared/errors'

/*
 * `stepwise sessions compact ID [--focus TEXT]` (docs/cli.md): the app's `/compact` from a
 * terminal. The session's own model writes the summary (or --model's, on its provider).
 */

interface CompactCliOptions {
  focus?: string
  model?: string
  baseUrl?: string
  force?: boolean
  dataDir?: string
}

export function addCompactCommand(sessions: Command): void {
  sessions
    .command('compact')
    .description(
      "Summarise a session's context so far (all but its first message and last exchange); later turns start from the summary",
    )
    .argument('<id>', 'session id (a unique prefix is enough)')
    .option('--focus <text>', 'what the summary should keep above all')
    .option('--model <name>', "write the summary with this model (default: the session's)")
    .option('--base-url <url>', "model server URL (default: the session's, unless the environment sets one)")
    .option('--force', 'compact although a live process is running the session')
    .addOption(dataDirOption())
    .action(async (id: string, opts: CompactCliOptions) => {
      process.exitCode = await runCompact(id, opts)
    })
}

async function runCompact(id: string, opts: CompactCliOptions): Promise<number> {
  const dataDir = path.resolve(opts.dataDir ?? defaultDataDir())
  const store = openCliStore(dataDir)
  try {
    const row = requireSession(store, id)
    // Its turn may be going on in the app or another terminal: a summary now would miss its end.
    if (row.status === 'running' && !opts.force)
      throw new UsageError(
        `session ${row.id} is running a turn in a live Stepwise process: wait for it to end, or pass --force (nothing was changed).`,
      )
    const events = store.listEvents(row.id)
    const current = sessionModel(events, row)
    const envUrl = envBaseUrl(current.provider)
    const provider = resolveProviderConfig(
      {
        provider: current.provider,
        model: opts.model ?? current.model,
        baseUrl: opts.baseUrl ?? (envUrl ? undefined : current.baseUrl),
      },
      process.env,
      store,
      dataDir,
    )
    const controller = new AbortController()
    const stop = (): void => controller.abort()
    process.once('SIGINT', stop)
    try {
      const done = await compactSession(
        store,
        { sessionId: row.id, repo: row.repo, provider, focus: opts.focus, events },
        controller.signal,
      )
      process.stdout.write(`${inertText(done.message)}\n`)
      return EXIT.ok
    } catch (err) {
      if (controller.signal.aborted) {
        process.stderr.write('stepwise: compaction stopped; nothing was changed.\n')
        return EXIT.interrupted
      }
      if (err instanceof InvalidStepError) throw new UsageError(err.message)
      const detail = errorMessage(err)
      process.stderr.write(`stepwise: compaction failed, nothing was changed: ${inertText(detail)}\n`)
      return err instanceof ProviderError ? EXIT.model : EXIT.failed
    } finally {
      process.off('SIGINT', stop)
    }
  } finally {
    store.close()
  }
}

/** The model the session runs on now: the one it started with, then each switch since. */
function sessionModel(
  events: readonly StepwiseEvent[],
  row: { provider: string; model: string },
): { provider: ProviderId; model: string; baseUrl?: string } {
  let current: { provider: ProviderId; model: string; baseUrl?: string } = {
    provider: row.provider as ProviderId,
    model: row.model,
  }
  for (const e of events) {
    if (e.type === 'session.started') current = { provider: e.provider, model: e.model, baseUrl: e.baseUrl }
    else if (e.type === 'session.configured') {
      const newProvider = e.provider !== undefined && e.provider !== current.provider
      current = {
        provider: e.provider ?? current.provider,
        model: e.model ?? current.model,
        baseUrl: e.baseUrl ?? (newProvider ? undefined : current.baseUrl),
      }
    }
  }
  return current
}
