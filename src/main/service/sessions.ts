import fs from 'node:fs'
import path from 'node:path'
import type {
  ApprovalPolicy,
  CommandInput,
  CommandOutput,
  ProviderId,
  StepwiseEvent,
} from '../../shared/protocol'
import type { Approver } from '../agent/approvals'
import type { ErrorAudience } from '../agent/errors'
import type { TaskOutcome } from '../agent/loop'
import { resumeBundle } from '../agent/resume'
import type { ProviderConfig } from '../providers/types'
import { openSession, startSession, type StartedSession } from '../session/start'
import { purgeSessions } from '../store/purge'
import type { SessionRow } from '../store/types'
import { HostApprover } from './approver'
import { MessageQueue } from './queue'
import { mcpHubOf } from './mcp'
import type { ServiceContext } from './context'
import { commandSettings, flagModelOptions, readSettings, storedModelOptions } from './settings'

/**
 * The app's sessions as chats: a session is opened empty (`session/create`) and
 * every message is a turn that continues it from its stored events — the same
 * mechanism as a fork (agent/resume.ts), so a chat survives a restart and can
 * switch model between turns. One turn runs at a time per session; its approvals
 * wait in a HostApprover until the renderer answers them.
 */

interface SessionConfig {
  provider: ProviderId
  model: string
  baseUrl?: string
  policy: ApprovalPolicy
}

interface LiveSession {
  repo: string
  config: SessionConfig
  approver: HostApprover
  /** Messages sent while a turn runs, delivered at its next step boundary. */
  queue: MessageQueue
  turn?: { controller: AbortController; started?: StartedSession; done: Promise<void> }
}

/** How long a deleted session can be restored (the app's Undo) before it is purged. */
export const DELETE_GRACE_MS = 30_000

/** Repair rounds of "until green" in the app (the CLI's --max-repairs default). */
const UNTIL_GREEN_ROUNDS = 15

export class ServiceError extends Error {
  override name = 'ServiceError'
}

export function resolveProjectDir(repo: string): string {
  const dir = path.resolve(repo)
  let stat: fs.Stats
  try {
    stat = fs.statSync(dir)
  } catch {
    throw new ServiceError(`Folder not found: ${dir}. Check the path and try again.`)
  }
  if (!stat.isDirectory()) throw new ServiceError(`Not a folder: ${dir}. Open the project's folder instead.`)
  return fs.realpathSync(dir)
}

export class SessionRuntime {
  private readonly live = new Map<string, LiveSession>()
  private purgeTimer: NodeJS.Timeout | undefined

  constructor(private readonly ctx: ServiceContext) {}

  async create(input: CommandInput<'session/create'>): Promise<CommandOutput<'session/create'>> {
    const repo = resolveProjectDir(input.repo)
    const settings = readSettings(this.ctx.store)
    const config: SessionConfig = {
      provider: input.provider ?? this.ctx.defaults.provider,
      model: input.model ?? (input.provider ? '' : this.ctx.defaults.model),
      baseUrl: input.baseUrl ?? (input.provider ? undefined : this.ctx.defaults.baseUrl),
      policy: input.approvalPolicy ?? this.ctx.defaults.approvalPolicy ?? settings.approvalPolicy,
    }
    if (!config.model) throw new ServiceError(`Pick a model for ${config.provider} first.`)
    const sessionId = await openSession(this.ctx.store, {
      repo,
      provider: this.providerConfig(config),
      policy: config.policy,
      maxSteps: input.maxSteps ?? settings.maxSteps,
      title: 'New chat',
      emit: this.ctx.broadcast,
    })
    this.live.set(sessionId, { repo, config, approver: new HostApprover(), queue: this.newQueue(sessionId) })
    this.ctx.broadcast({ type: 'host.sessions-changed', sessionId })
    return { sessionId }
  }

  list(input: CommandInput<'session/list'>): CommandOutput<'session/list'> {
    const repo = input.repo ? resolveProjectDir(input.repo) : undefined
    const rows = this.ctx.store.listSessions({ repo, limit: 500 })
    return {
      sessions: rows.map((row) => ({
        id: row.id,
        repo: row.repo,
        title: row.title,
        status: this.live.get(row.id)?.turn ? 'running' : row.status,
        parentId: row.parentId,
        provider: this.live.get(row.id)?.config.provider ?? row.provider,
        model: this.live.get(row.id)?.config.model ?? row.model,
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
      })),
    }
  }

  events(input: CommandInput<'session/events'>): CommandOutput<'session/events'> {
    this.row(input.sessionId)
    return { events: this.ctx.store.listEvents(input.sessionId, { afterSeq: input.afterSeq }) }
  }

  isRunning(sessionId: string): boolean {
    return Boolean(this.live.get(sessionId)?.turn)
  }

  /**
   * Starts a turn and returns once it runs (the project is prepared first, so a
   * bad folder or model setup rejects here and the renderer keeps the message).
   * Without a message the model is asked again from where the session stands (Retry).
   */
  async startTurn(
    sessionId: string,
    message: string | undefined,
    opts: { untilGreen?: boolean } = {},
  ): Promise<CommandOutput<'turn/start'>> {
    await this.beginTurn(sessionId, message, opts)
    return { accepted: true }
  }

  /**
   * The turn itself, for every host: the app's `turn/start` and the CLI's `sessions continue`.
   * `approver` answers this turn's approvals instead of the app's (the CLI's terminal);
   * `outcome` settles when the turn has ended and recorded its end (undefined when it stopped
   * on an internal error, which is recorded as an error event).
   */
  async beginTurn(
    sessionId: string,
    message: string | undefined,
    opts: { untilGreen?: boolean; approver?: Approver; audience?: ErrorAudience } = {},
  ): Promise<{ outcome: Promise<TaskOutcome | undefined> }> {
    const { store } = this.ctx
    // Loaded once for the whole turn: the config, the transcript and the session's reads.
    const events = store.listEvents(sessionId)
    const live = this.liveSession(sessionId, events)
    if (live.turn)
      throw new ServiceError('A turn is already running in this session. Wait for it, or press Stop.')
    const firstMessage = !events.some((e) => e.type === 'user.message')
    const controller = new AbortController()
    const turn: NonNullable<LiveSession['turn']> = { controller, done: Promise.resolve() }
    live.turn = turn
    try {
      const settings = readSettings(store)
      turn.started = await startSession(store, {
        // Only read when opening a session; this one exists, so the message (if any) is the task.
        task: message ?? '',
        repo: live.repo,
        provider: this.providerConfig(live.config),
        policy: live.config.policy,
        maxSteps: settings.maxSteps,
        limits: settings.limits,
        commands: commandSettings(store),
        repair: opts.untilGreen ? { maxRounds: UNTIL_GREEN_ROUNDS } : undefined,
        approver: opts.approver ?? live.approver,
        emit: this.ctx.broadcast,
        audience: opts.audience ?? 'app',
        mcp: await mcpHubOf(this.ctx)?.forSession(live.repo),
        inbox: () => live.queue.take(),
        // Any end is a place to continue from (stopped, failed, killed): see providers/transcript.ts.
        resume: { sessionId, message, ...resumeBundle(events, { retry: message === undefined }) },
      })
    } catch (err) {
      live.turn = undefined
      throw err
    }
    if (firstMessage && message !== undefined) store.setSessionTitle(sessionId, titleOf(message))
    store.setSessionStatus(sessionId, 'running')
    this.ctx.broadcast({ type: 'host.sessions-changed', sessionId: sessionId })
    const started = turn.started
    const outcome = started.run(controller.signal).then(
      (ended): TaskOutcome => ended,
      (err: unknown) => {
        const detail = err instanceof Error ? err.message : String(err)
        this.ctx.broadcast(
          store.appendEvent(sessionId, {
            type: 'error',
            code: 'internal',
            message: `The turn stopped on an internal error: ${detail}`,
            hint: 'Everything up to here is saved. Send your message again, or report the error.',
          }),
        )
        store.setSessionStatus(sessionId, 'error')
        return undefined
      },
    )
    turn.done = outcome.then(
      () => undefined,
      () => undefined,
    )
    const ended = turn.done.finally(() => {
      live.turn = undefined
      this.ctx.broadcast({ type: 'host.turn-ended', sessionId: sessionId })
      this.ctx.broadcast({ type: 'host.sessions-changed', sessionId: sessionId })
      // A message that came after the agent's last step boundary starts the next turn; after a
      // stop or an error the queue waits for the user (queue/flush), who may want to change it.
      void outcome.then((result) => {
        if (live.queue.size > 0 && (result?.reason === 'done' || result?.reason === 'step-limit'))
          void this.flushQueue({ sessionId }).catch((err: unknown) => this.reportQueueFailure(sessionId, err))
      })
    })
    return { outcome: ended.then(() => outcome) }
  }

  /** `queue/add`: waits for the running turn's next step, or starts a turn when none runs. */
  async enqueue(input: CommandInput<'queue/add'>): Promise<CommandOutput<'queue/add'>> {
    const live = this.liveSession(input.sessionId)
    if (!live.turn) {
      await this.startTurn(input.sessionId, input.text)
      return { id: '', started: true }
    }
    return { id: live.queue.add(input.text), started: false }
  }

  updateQueued(input: CommandInput<'queue/update'>): CommandOutput<'queue/update'> {
    if (!this.liveSession(input.sessionId).queue.update(input.id, input.text))
      throw new ServiceError('That message was already delivered to the model, or taken back.')
    return { ok: true }
  }

  removeQueued(input: CommandInput<'queue/remove'>): CommandOutput<'queue/remove'> {
    if (!this.liveSession(input.sessionId).queue.remove(input.id))
      throw new ServiceError('That message was already delivered to the model, or taken back.')
    return { ok: true }
  }

  /** `queue/flush`: the queued messages, joined, become the next turn's message. */
  async flushQueue(input: CommandInput<'queue/flush'>): Promise<CommandOutput<'queue/flush'>> {
    const live = this.liveSession(input.sessionId)
    if (live.turn)
      throw new ServiceError('A turn is running: the queued messages reach the model at its next step.')
    const texts = live.queue.take()
    if (texts.length === 0) return { accepted: false }
    try {
      return await this.startTurn(input.sessionId, texts.join('\n\n'))
    } catch (err) {
      // Not delivered: the messages go back to the queue, so the user can send them again.
      for (const text of texts) live.queue.add(text)
      throw err
    }
  }

  private newQueue(sessionId: string): MessageQueue {
    return new MessageQueue((items) =>
      this.ctx.broadcast({ type: 'host.queue-changed', sessionId, items: [...items] }),
    )
  }

  private reportQueueFailure(sessionId: string, err: unknown): void {
    const detail = err instanceof Error ? err.message : String(err)
    this.ctx.broadcast(
      this.ctx.store.appendEvent(sessionId, {
        type: 'error',
        code: 'internal',
        message: `The queued messages could not start a turn: ${detail}`,
        hint: 'They are still queued: fix what the error says, then send them.',
      }),
    )
  }

  /** A run started elsewhere (a review) on a stored session: Stop and the running state apply to it. */
  track(sessionId: string, controller: AbortController, done: Promise<unknown>): void {
    const live = this.liveSession(sessionId)
    const turn = { controller, done: Promise.resolve() }
    live.turn = turn
    turn.done = done.then(
      () => undefined,
      () => undefined,
    )
    void turn.done.finally(() => {
      if (live.turn === turn) live.turn = undefined
      this.ctx.broadcast({ type: 'host.turn-ended', sessionId })
      this.ctx.broadcast({ type: 'host.sessions-changed', sessionId })
    })
  }

  interrupt(input: CommandInput<'turn/interrupt'>): CommandOutput<'turn/interrupt'> {
    const turn = this.live.get(input.sessionId)?.turn
    if (!turn) return { interrupted: false }
    turn.controller.abort()
    return { interrupted: true }
  }

  resolveApproval(input: CommandInput<'approval/resolve'>): CommandOutput<'approval/resolve'> {
    const live = this.liveSession(input.sessionId)
    const { sessionId: _session, callId, ...answer } = input
    if (!live.approver.resolve(callId, answer))
      throw new ServiceError('That approval is no longer waiting (it was answered, or the turn stopped).')
    return { ok: true }
  }

  configure(input: CommandInput<'session/configure'>): CommandOutput<'session/configure'> {
    const live = this.liveSession(input.sessionId)
    const { provider, model, baseUrl, approvalPolicy } = input
    if (provider && provider !== live.config.provider && !model)
      throw new ServiceError('Switching provider needs a model too.')
    live.config = applyConfigured(live.config, input)
    if (approvalPolicy) live.turn?.started?.setPolicy(approvalPolicy)
    // Recorded, so the session shows its model and policy — live, after a restart and in replay.
    this.ctx.broadcast(
      this.ctx.store.appendEvent(input.sessionId, {
        type: 'session.configured',
        ...(provider ? { provider } : {}),
        ...(model ? { model } : {}),
        ...(baseUrl ? { baseUrl } : {}),
        ...(approvalPolicy ? { approvalPolicy } : {}),
      }),
    )
    this.ctx.broadcast({ type: 'host.sessions-changed', sessionId: input.sessionId })
    return { ok: true }
  }

  /**
   * Soft delete (`session/delete`): the sessions leave the list now and are purged when the
   * grace period ends (the app's Undo calls `session/restore` before that).
   */
  delete(input: CommandInput<'session/delete'>): CommandOutput<'session/delete'> {
    for (const id of input.sessionIds) {
      const row = this.row(id)
      if (this.isRunning(row.id))
        throw new ServiceError(`Session ${row.id} is running a turn: stop it before deleting it.`)
    }
    const now = Date.now()
    const deleted = this.ctx.store.markSessionsDeleted(input.sessionIds, now)
    for (const id of deleted) this.live.delete(id)
    this.schedulePurge(DELETE_GRACE_MS)
    for (const id of deleted) this.ctx.broadcast({ type: 'host.sessions-changed', sessionId: id })
    return { deleted, restorableUntil: now + DELETE_GRACE_MS }
  }

  restore(input: CommandInput<'session/restore'>): CommandOutput<'session/restore'> {
    const restored = this.ctx.store.restoreSessions(input.sessionIds)
    for (const id of restored) this.ctx.broadcast({ type: 'host.sessions-changed', sessionId: id })
    return { restored }
  }

  rename(input: CommandInput<'session/rename'>): CommandOutput<'session/rename'> {
    const row = this.row(input.sessionId)
    if (row.deletedAt !== null) throw new ServiceError(`Session ${row.id} was deleted.`)
    this.ctx.store.setSessionTitle(row.id, input.title)
    this.ctx.broadcast({ type: 'host.sessions-changed', sessionId: row.id })
    return { ok: true }
  }

  /** Purges the sessions whose grace period is over (at start, and after each delete). */
  purgeExpired(now = Date.now()): void {
    const due = this.ctx.store
      .listDeletedSessions()
      .filter((d) => d.deletedAt + DELETE_GRACE_MS <= now)
      .map((d) => d.id)
    if (due.length === 0) return
    try {
      purgeSessions(this.ctx.store, due)
    } catch (err) {
      console.error('[stepwise] purging deleted sessions failed; retried on the next start', err)
    }
  }

  private schedulePurge(delayMs: number): void {
    if (this.purgeTimer) return
    this.purgeTimer = setTimeout(() => {
      this.purgeTimer = undefined
      this.purgeExpired()
      if (this.ctx.store.listDeletedSessions().length > 0) this.schedulePurge(DELETE_GRACE_MS)
    }, delayMs + 100)
    this.purgeTimer.unref()
  }

  /** Stops every running turn and waits for them to record their end. */
  async close(): Promise<void> {
    const turns = [...this.live.values()].flatMap((l) => (l.turn ? [l.turn] : []))
    for (const t of turns) t.controller.abort()
    await Promise.all(turns.map((t) => t.done))
    if (this.purgeTimer) clearTimeout(this.purgeTimer)
    this.purgeTimer = undefined
  }

  private row(sessionId: string): SessionRow {
    const row = this.ctx.store.getSession(sessionId)
    if (!row) throw new ServiceError(`No session ${sessionId}.`)
    return row
  }

  /**
   * The in-memory side of a stored session, made on first use (after a restart, or a fork) from
   * its events (`events` when the caller has loaded them already).
   */
  liveSession(sessionId: string, events?: readonly StepwiseEvent[]): LiveSession {
    const existing = this.live.get(sessionId)
    if (existing) return existing
    const row = this.row(sessionId)
    let config: SessionConfig = {
      provider: row.provider as ProviderId,
      model: row.model,
      policy: readSettings(this.ctx.store).approvalPolicy,
    }
    // The model and policy it started with, then every switch since.
    for (const e of events ?? this.ctx.store.listEvents(sessionId)) {
      if (e.type === 'session.started')
        config = { provider: e.provider, model: e.model, baseUrl: e.baseUrl, policy: e.approvalPolicy }
      else if (e.type === 'session.configured') config = applyConfigured(config, e)
    }
    const live: LiveSession = {
      repo: row.repo,
      config,
      approver: new HostApprover(),
      queue: this.newQueue(sessionId),
    }
    this.live.set(sessionId, live)
    return live
  }

  providerConfig(config: SessionConfig): ProviderConfig {
    return {
      provider: config.provider,
      model: config.model,
      baseUrl: config.baseUrl,
      apiKey: this.ctx.keys.get(config.provider),
      // The window, temperature and stream limits: the host's flags, else the stored settings.
      ...storedModelOptions(this.ctx.store, flagModelOptions(this.ctx.defaults)),
    }
  }
}

/**
 * A switch of model or policy applied to a session's config: live (`session/configure`)
 * and when a session is read back from its `session.configured` events, the same way.
 * A new provider drops the old server address unless the switch names one.
 */
function applyConfigured(
  config: SessionConfig,
  change: { provider?: ProviderId; model?: string; baseUrl?: string; approvalPolicy?: ApprovalPolicy },
): SessionConfig {
  const newProvider = change.provider !== undefined && change.provider !== config.provider
  return {
    provider: change.provider ?? config.provider,
    model: change.model ?? config.model,
    baseUrl: change.baseUrl ?? (newProvider ? undefined : config.baseUrl),
    policy: change.approvalPolicy ?? config.policy,
  }
}

function titleOf(text: string): string {
  const line = text.trim().split('\n')[0] ?? ''
  return line.length > 80 ? `${line.slice(0, 79)}…` : line || 'New chat'
}
