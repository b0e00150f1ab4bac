import { type Command, InvalidArgumentError, Option } from 'commander'
import type { Store } from '../../store/types'
import {
  rewindSession,
  undoSession,
  type RestoreOptions,
  type RestoreOutcome,
} from '../../timetravel/restore'
import { EXIT, UsageError } from './exit-codes'
import { confirm } from './confirm'
import { inertDeep, inertText } from '../../../shared/terminalText'
import { openCliStore } from './session-store'
import { seqOfStepArg } from './fork-replay'
import { stepNumberAfter, stepsOf, type Step } from '../../../shared/steps'

/*
 * `stepwise sessions undo ID` and `stepwise sessions rewind ID --to STEP`
 * (docs/cli.md). Fork and replay commands live in their own functions.
 */

interface UndoRewindOptions {
  dataDir?: string
  yes?: boolean
  force?: boolean
}

function stepNumber(value: string): number {
  const n = Number(value)
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n))
    throw new InvalidArgumentError('expected a step number (a whole number, as sessions show prints it).')
  return n
}

export function addUndoRewindCommands(sessions: Command): void {
  const common = (cmd: Command) =>
    cmd
      .argument('<id>', 'session id (a unique prefix is enough)')
      .option('--yes', 'overwrite files changed outside the session without asking (they are saved first)')
      .option('--force', 'restore although a live process is running the session')
      .addOption(
        new Option(
          '--data-dir <dir>',
          'where sessions are stored (default: $STEPWISE_HOME, else the OS app-data folder)',
        ),
      )
  common(
    sessions
      .command('undo')
      .description("Undo the session's last change to the project (or its last undo/rewind's restore)"),
  ).action(async (id: string, opts: UndoRewindOptions) => {
    process.exitCode = await runRestore(id, opts, (store, sid, o) => undoSession(store, sid, o), 'undo')
  })
  common(
    sessions
      .command('rewind')
      .description("Put the project's files back as they were right after step STEP of the session")
      .requiredOption(
        '--to <step>',
        'the step number, as sessions show prints it (0: the start)',
        stepNumber,
      ),
  ).action(async (id: string, opts: UndoRewindOptions & { to: number }) => {
    process.exitCode = await runRestore(
      id,
      opts,
      (store, sid, o) => rewindSession(store, sid, seqOfStepArg(store.listEvents(sid), opts.to), o),
      'rewind',
    )
  })
}

type Restore = (store: Store, sessionId: string, opts: RestoreOptions) => Promise<RestoreOutcome>

async function runRestore(
  id: string,
  opts: UndoRewindOptions,
  restore: Restore,
  verb: 'undo' | 'rewind',
): Promise<number> {
  const store = openCliStore(opts.dataDir)
  try {
    const session = store.findSession(id)
    if (!session)
      throw new UsageError(
        `no session matches "${id}" in ${store.path}. List them with: stepwise sessions list`,
      )
    // One restore and the process ends: no directory walk or file watches for later snapshots.
    let outcome = await restore(store, session.id, { confirm: opts.yes, force: opts.force, oneShot: true })
    if (outcome.status === 'conflict') {
      const list = outcome.conflicts.map((p) => `  ${inertText(p)}\n`).join('')
      process.stderr.write(
        `These files were changed outside the session since its last checkpoint; the ${verb} would ` +
          `overwrite or delete them:\n${list}`,
      )
      if (!(process.stdin.isTTY && process.stderr.isTTY)) {
        process.stderr.write(
          `stepwise: not overwriting them without a terminal to ask on. Pass --yes to go ahead ` +
            `(the present files are saved as a checkpoint first, so the ${verb} can be undone).\n`,
        )
        return EXIT.failed
      }
      if (
        !(await confirm(
          `Overwrite them? The present files are saved first and can be brought back with undo. [y/N] `,
        ))
      ) {
        process.stderr.write('Nothing was changed.\n')
        return EXIT.failed
      }
      outcome = await restore(store, session.id, { confirm: true, force: opts.force, oneShot: true })
    }
    return report(outcome, session.id, verb, stepsOf(store.listEvents(session.id)))
  } finally {
    store.close()
  }
}

function report(
  raw: RestoreOutcome,
  sessionId: string,
  verb: 'undo' | 'rewind',
  steps: readonly Step[],
): number {
  const outcome = inertDeep(raw)
  switch (outcome.status) {
    case 'nothing':
      process.stdout.write(`${outcome.message}\n`)
      return EXIT.ok
    case 'refused':
      if (outcome.reason === 'usage') throw new UsageError(outcome.message)
      process.stderr.write(`stepwise: ${outcome.message}\n`)
      return EXIT.failed
    case 'conflict':
      process.stderr.write('stepwise: files changed outside the session; nothing was changed.\n')
      return EXIT.failed
    case 'restored': {
      const at = outcome.toSeq === undefined ? '' : ` to step ${stepNumberAfter(steps, outcome.toSeq)}`
      const lines = [
        `${verb === 'undo' ? 'Undone' : 'Rewound'}${at}: the project is at checkpoint ${outcome.snapshotId}.`,
        ...outcome.written.map((p) => `  restored ${p}`),
        ...outcome.deleted.map((p) => `  deleted  ${p}`),
        ...(outcome.written.length + outcome.deleted.length === 0 ? ['  (no file needed changing)'] : []),
        // A second undo goes further back; the step before this one is where the files were.
        verb === 'undo'
          ? `The files from before are saved as checkpoint ${outcome.savedSnapshotId}; take this undo back ` +
            `with: stepwise sessions rewind ${sessionId} --to ${stepNumberAfter(steps, outcome.event.seq - 1)}`
          : `The files from before are saved as checkpoint ${outcome.savedSnapshotId}; undo this with: ` +
            `stepwise sessions undo ${sessionId}`,
      ]
      process.stdout.write(`${lines.join('\n')}\n`)
      return EXIT.ok
    }
  }
}
