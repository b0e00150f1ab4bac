import { errorMessage } from '../../shared/errors'
import type { CommandInput, CommandOutput, RestoreReply } from '../../shared/protocol'
import { forkSession } from '../timetravel/fork'
import { snapshotDiff, snapshotReader } from '../timetravel/replay'
import {
  readTimeline,
  rewindSession,
  snapshotAtStep,
  undoSession,
  type RestoreOutcome,
} from '../timetravel/restore'
import type { ServiceContext } from './context'
import { ServiceError, type SessionRuntime } from './sessions'
import { keptHashAt, keptPathsAt } from '../session/ignored-at'

/**
 * Time travel from the app (issue 4): undo, rewind, fork in place, and the files
 * and diff of any step for the replay view. A restore never runs under a live
 * turn; files changed outside the session come back as `conflict` for the user to
 * confirm, and the restore is itself undoable (the core checkpoints first).
 */

function reply(outcome: RestoreOutcome): RestoreReply {
  switch (outcome.status) {
    case 'restored': {
      const paths = [...outcome.written, ...outcome.deleted].sort()
      const files = `${paths.length} file${paths.length === 1 ? '' : 's'}`
      return {
        status: 'restored',
        seq: outcome.event.seq,
        // An undo is not undone by the next undo (that one goes further back); a rewind is.
        message:
          outcome.event.kind === 'undo'
            ? `Undid the last change: restored ${files}.`
            : `Restored ${files}. Undo puts ${paths.length === 1 ? 'it' : 'them'} back.`,
        paths,
        conflicts: [],
      }
    }
    case 'conflict':
      return {
        status: 'conflict',
        message: `${outcome.conflicts.length} file(s) changed outside this session since then. Overwrite them? They are saved first, so an undo brings them back.`,
        paths: [],
        conflicts: outcome.conflicts,
      }
    case 'nothing':
      return { status: 'nothing', message: outcome.message, paths: [], conflicts: [] }
    case 'refused':
      return { status: 'refused', message: outcome.message, paths: [], conflicts: [] }
  }
}

export class TimeTravel {
  constructor(
    private readonly ctx: ServiceContext,
    private readonly sessions: SessionRuntime,
  ) {}

  private idle(sessionId: string): void {
    if (this.sessions.isRunning(sessionId))
      throw new ServiceError('A turn is running in this session: press Stop first, then try again.')
  }

  private done(sessionId: string, r: RestoreReply): RestoreReply {
    if (r.status === 'restored') this.ctx.broadcast({ type: 'host.sessions-changed', sessionId })
    return r
  }

  async undo(input: CommandInput<'session/undo'>): Promise<CommandOutput<'session/undo'>> {
    this.idle(input.sessionId)
    const outcome = await undoSession(this.ctx.store, input.sessionId, { confirm: input.confirm })
    this.forward(outcome)
    return this.done(input.sessionId, reply(outcome))
  }

  async rewind(input: CommandInput<'session/rewind'>): Promise<CommandOutput<'session/rewind'>> {
    this.idle(input.sessionId)
    const outcome = await rewindSession(this.ctx.store, input.sessionId, input.toSeq, {
      confirm: input.confirm,
    })
    this.forward(outcome)
    return this.done(input.sessionId, reply(outcome))
  }

  /**
   * Forks as the app's dialog chose (the conversation, the files or both; in place or in a new
   * git worktree, the core picking its folder unless one is named) and leaves the child waiting
   * for the user's next message, on the model they chose.
   */
  async fork(input: CommandInput<'session/fork'>): Promise<CommandOutput<'session/fork'>> {
    this.idle(input.sessionId)
    const parent = this.sessions.liveSession(input.sessionId)
    const model =
      input.model !== undefined
        ? { provider: input.provider ?? parent.config.provider, model: input.model, baseUrl: input.baseUrl }
        : undefined
    const result = await forkSession(this.ctx.store, {
      sessionId: input.sessionId,
      atSeq: input.atSeq,
      what: input.what,
      files: input.where === 'worktree' ? { kind: 'worktree', dir: input.worktreeDir } : { kind: 'in-place' },
      model,
      emit: this.ctx.broadcast,
    }).catch((err: unknown) => {
      throw new ServiceError(`Cannot fork there: ${errorMessage(err)}`)
    })
    this.ctx.broadcast({ type: 'host.sessions-changed', sessionId: input.sessionId })
    this.ctx.broadcast({ type: 'host.sessions-changed', sessionId: result.sessionId })
    return { sessionId: result.sessionId, repo: result.repo, title: result.title }
  }

  filesAt(input: CommandInput<'session/files-at'>): CommandOutput<'session/files-at'> {
    const { snapshots, events } = this.reader(input.sessionId)
    const snapshotId = snapshotAtStep(events, input.seq)
    if (snapshotId === undefined) return { snapshotId: null, files: [], diff: '' }
    // With the files a command changed under ignored folders, kept apart from the snapshots.
    // (Only what the gate admitted was kept.)
    const kept = keptPathsAt(events, input.seq)
    const files = [...snapshots.getManifest(snapshotId).map((f) => f.path), ...kept].sort()
    // The diff of the step itself: the files it left against those the step before left.
    const previous = readTimeline(events, input.seq - 1).headSnapshotId
    const diff =
      previous !== undefined && previous !== snapshotId ? snapshotDiff(snapshots, previous, snapshotId) : ''
    return { snapshotId, files, diff }
  }

  fileAt(input: CommandInput<'session/file-at'>): CommandOutput<'session/file-at'> {
    const { snapshots, events } = this.reader(input.sessionId)
    // A file under an ignored folder is in no snapshot: what a command wrote there is kept by hash.
    const kept = (seq: number) => {
      const hash = keptHashAt(events, seq, input.path)
      return hash ? snapshots.readKept(input.path, hash) : null
    }
    const read = (snapshotId: number | undefined, seq: number) =>
      (snapshotId === undefined ? null : snapshots.readFileAt(snapshotId, input.path)) ?? kept(seq)
    const after = read(snapshotAtStep(events, input.seq), input.seq)
    const before = read(readTimeline(events, input.seq - 1).headSnapshotId, input.seq - 1)
    const binary = [after, before].some((b) => b?.subarray(0, 8192).includes(0))
    if (binary) return { content: null, before: null, binary: true }
    return {
      content: after?.toString('utf8') ?? null,
      before: before?.toString('utf8') ?? null,
      binary: false,
    }
  }

  private reader(sessionId: string) {
    const row = this.ctx.store.getSession(sessionId)
    if (!row) throw new ServiceError(`No session ${sessionId}.`)
    return {
      snapshots: snapshotReader(this.ctx.store, row.repo),
      events: this.ctx.store.listEvents(sessionId),
    }
  }

  /** A restore's `checkpoint.restored` is stored by the core; the renderer hears of it here. */
  private forward(outcome: RestoreOutcome): void {
    if (outcome.status === 'restored') this.ctx.broadcast(outcome.event)
  }
}
