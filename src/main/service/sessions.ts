import type { CommandInput, CommandOutput, StepwiseEvent } from '../../shared/protocol'
import type { Approver } from '../agent/approvals'
import type { AgentOptions, TurnOutcome } from '../agent/loop'
import type { ErrorAudience } from '../agent/errors'
import type { CommandSettings } from '../sandboxing/settings'
import { eventsSince, Session } from '../session/session'
import type { TurnKind } from '../session/turn'
import type { SessionRow } from '../store/types'
import { HostApprover } from './approver'
import type { ServiceContext } from './context'
import type { MentionedResource } from '../agent/mentions'
import { mcpHubOf, refuseQueued, turnMessage } from './mcp'
import { MessageQueue } from './queue'
import {
  applyConfigured,
  configFromEvents,
  providerConfigOf,
  sameProviderConfig,
  type SessionConfig,
} from './session-config'
import { rememberedBaseUrl } from './provider-settings'
import { resolveProjectDir, ServiceError } from './service-error'
import { flushQueue, reportQueueFailure } from './queue-commands'
import { SessionTrash } from './session-trash'
import { commandSettings, readSettings } from './settings'

export { DELETE_GRACE_MS } from './session-trash'
export { resolveProjectDir, ServiceError } from './service-error'
export type { SessionConfig } from './session-config'

/**
 * The sessions of every host (docs/sessions.md): the app's chats, `serve`, and the CLI's `edit`
 * and `sessions continue` in process. Each stored session gets a live side on first use: its
 * config, its approver and message queue, and its Session object (session/session.ts), which
 * keeps the sandbox, provider, code context and system prompt across turns. One turn runs at a
 * time per session; the app's approvals wait in a HostApprover until the renderer answers them.
 */

interface LiveSession {
  repo: string
  config: SessionConfig
  approver: HostApprover
  /** Messages sent while a turn runs, delivered at its next step boundary. */
  queue: MessageQueue
  /** Loaded on the first turn (or opened here); dropped when the session is deleted. */
  session?: Session
  /** What the host that opened the session set for its turns (the CLI's `edit` flags). */
  host?: HostTurnSettings
  /** A turn, or another run (a compaction, a review) that makes the session busy. */
  turn?: { controller: AbortController; done: Promise<void> }
  /**
   * The events read to make this live side, kept until the first turn: its load and its
   * transcript take them (with any stored since), so a turn after a restart reads the log once.
   */
  loadedEvents?: readonly StepwiseEvent[]
}

/** Settings a host fixes for a session's turns in this process, instead of the stored settings. */
export interface HostTurnSettings {
  maxSteps?: number
  maxToolCalls?: number
  commands?: CommandSettings
  mcp?: AgentOptions['mcp']
  /** Repair rounds of "until green". */
  repairRounds?: number
}

/** Repair rounds of "until green" in the app (the CLI's --max-repairs default). */
const UNTIL_GREEN_ROUNDS = 15

export class SessionRuntime {
  private readonly live = new Map<string, LiveSession>()
  private readonly trash: SessionTrash

  constructor(private readonly ctx: ServiceContext) {
    this.trash = new SessionTrash(ctx)
  }

  async create(input: CommandInput<'session/create'>): Promise<CommandOutput<'session/create'>> {
    const settings = readSettings(this.ctx.store)
    const config: SessionConfig = {
      provider: input.provider ?? this.ctx.defaults.provider,
      model: input.model ?? (input.provider ? '' : this.ctx.defaults.model),
      baseUrl:
        input.baseUrl ??
        (input.provider ? rememberedBaseUrl(this.ctx, input.provider) : this.ctx.defaults.baseUrl),
      policy: input.approvalPolicy ?? this.ctx.defaults.approvalPolicy ?? settings.approvalPolicy,
    }
    if (!config.model) throw new ServiceError(`Pick a model for ${config.provider} first.`)
    const sessionId = await this.open({
      repo: input.repo,
      config,
      maxSteps: input.maxSteps ?? settings.maxSteps,
      title: 'New chat',
    })
    return { sessionId }
  }

  /**
   * Opens a session (the app's new chat; the CLI's `edit`, with `eager` preparation and the
   * settings its flags fix in `host`). Nothing runs until a turn starts.
   */
  async open(input: {
    repo: string
    config: SessionConfig
    maxSteps?: number
    title: string
    eager?: boolean
    host?: HostTurnSettings
  }): Promise<string> {
    const repo = resolveProjectDir(input.repo)
    const approver = new HostApprover()
    const queue = new MessageQueue((items) =>
      this.ctx.broadcast({ type: 'host.queue-changed', sessionId: session.id, items: [...items] }),
    )
    const session = await Session.create(
      this.ctx.store,
      {
        ...this.sessionSetup(repo, input.config, approver, queue),
        maxSteps: input.maxSteps,
        title: input.title,
      },
      { eager: input.eager },
    )
    this.live.set(session.id, { repo, config: input.config, approver, queue, session, host: input.host })
    this.ctx.broadcast({ type: 'host.sessions-changed', sessionId: session.id })
    return session.id
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
   * The turn itself, for every host: the app's `turn/start`, the CLI's `edit` and
   * `sessions continue`. `approver` answers this turn's approvals instead of the app's (the
   * CLI's terminal); `signal` stops it as `turn/interrupt` does. Resolves once the turn runs,
   * with what the user should know first (`notices`) and its `outcome`, which settles when
   * the turn has ended and recorded its end.
   */
  async beginTurn(
    sessionId: string,
    message: string | undefined,
    opts: {
      untilGreen?: boolean
      approver?: Approver
      audience?: ErrorAudience
      signal?: AbortSignal
      /** `continue`: no message and no retry (a fork's re-run). */
      kind?: TurnKind
      /** Settings the host fixes for this process's turns of the session (the CLI's flags). */
      host?: HostTurnSettings
    } = {},
  ): Promise<{ outcome: Promise<TurnOutcome | undefined>; notices: string[] }> {
    const { store } = this.ctx
    const live = this.liveSession(sessionId)
    if (live.turn)
      throw new ServiceError('A turn is already running in this session. Wait for it, or press Stop.')
    if (opts.host) live.host = opts.host
    const controller = new AbortController()
    const turn: NonNullable<LiveSession['turn']> = { controller, done: Promise.resolve() }
    live.turn = turn
    let session: Session
    let notices: string[]
    let mcp: AgentOptions['mcp']
    let resources: MentionedResource[] = []
    try {
      session = await this.sessionOf(sessionId, live)
      notices = await session.prepare()
      // A host that fixed its own MCP servers (the CLI's) keeps them; the app's hub otherwise.
      const hub = live.host ? undefined : await mcpHubOf(this.ctx)?.forSession(live.repo)
      mcp = live.host ? live.host.mcp : hub
      // The app's message: a server prompt's text, or its words with the resources it names.
      if (hub && message !== undefined) ({ message, resources } = await turnMessage(hub, message))
    } catch (err) {
      live.turn = undefined
      throw err
    }
    const settings = readSettings(store)
    const stop = (): void => controller.abort()
    opts.signal?.addEventListener('abort', stop)
    if (opts.signal?.aborted) stop()
    const outcome = session
      .runTurn({
        message,
        resources,
        kind: opts.kind,
        repair: opts.untilGreen ? { maxRounds: live.host?.repairRounds ?? UNTIL_GREEN_ROUNDS } : undefined,
        approver: opts.approver,
        audience: opts.audience ?? 'app',
        maxSteps: live.host?.maxSteps ?? settings.maxSteps,
        maxToolCalls: live.host?.maxToolCalls ?? settings.maxToolCalls,
        // The turn reads the session's events once; it says when this message is the first.
        onFirstMessage: (first) => store.setSessionTitle(sessionId, titleOf(first)),
        limits: settings.limits,
        commands: live.host?.commands ?? commandSettings(store),
        mcp,
        signal: controller.signal,
      })
      .then(
        (ended): TurnOutcome | undefined => (ended.errorKind === 'internal' ? undefined : ended),
        (err: unknown) => {
          // The store could not record the turn's end (a full disk): liveness reads it as interrupted.
          console.error('[stepwise] a turn could not record its end', err)
          return undefined
        },
      )
    this.ctx.broadcast({ type: 'host.sessions-changed', sessionId })
    turn.done = outcome.then(() => undefined)
    const ended = turn.done.finally(() => {
      opts.signal?.removeEventListener('abort', stop)
      live.turn = undefined
      this.ctx.broadcast({ type: 'host.turn-ended', sessionId })
      this.ctx.broadcast({ type: 'host.sessions-changed', sessionId })
      // A message that came after the agent's last step boundary starts the next turn; after a
      // stop or an error the queue waits for the user (queue/flush), who may want to change it.
      void outcome.then((result) => {
        if (live.queue.size > 0 && (result?.reason === 'done' || result?.reason === 'step-limit'))
          void flushQueue(this, { sessionId }).catch((err: unknown) =>
            reportQueueFailure(this.ctx, sessionId, err),
          )
      })
    })
    return { outcome: ended.then(() => outcome), notices }
  }

  /** A message for a running turn's queue that must start a turn of its own is refused (service/mcp.ts). */
  checkQueued(sessionId: string, text: string): void {
    const live = this.liveSession(sessionId)
    refuseQueued(live.host ? undefined : mcpHubOf(this.ctx)?.managerOf(live.repo), text)
  }

  /** Prepares a session's first turn ahead of it; returns what the user should know first. */
  async prepare(sessionId: string): Promise<string[]> {
    return (await this.sessionOf(sessionId, this.liveSession(sessionId))).prepare()
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
    const { provider, model, approvalPolicy } = input
    if (provider && provider !== live.config.provider && !model)
      throw new ServiceError('Switching provider needs a model too.')
    // A provider switched to without an address runs on the one remembered for that provider.
    const baseUrl =
      input.baseUrl ??
      (provider && provider !== live.config.provider ? rememberedBaseUrl(this.ctx, provider) : undefined)
    live.config = applyConfigured(live.config, { ...input, baseUrl })
    if (approvalPolicy) live.session?.setPolicy(approvalPolicy)
    if (provider || model || baseUrl) live.session?.setModel(providerConfigOf(this.ctx, live.config))
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
    const result = this.trash.delete(input.sessionIds)
    for (const id of result.deleted) {
      this.live.get(id)?.session?.close()
      this.live.delete(id)
    }
    for (const id of result.deleted) this.ctx.broadcast({ type: 'host.sessions-changed', sessionId: id })
    return result
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
    this.trash.purgeExpired(now)
  }

  /** Stops every running turn and waits for them to record their end. */
  async close(): Promise<void> {
    const turns = [...this.live.values()].flatMap((l) => (l.turn ? [l.turn] : []))
    for (const t of turns) t.controller.abort()
    await Promise.all(turns.map((t) => t.done))
    for (const l of this.live.values()) l.session?.close()
    this.trash.close()
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
    const queue = new MessageQueue((items) =>
      this.ctx.broadcast({ type: 'host.queue-changed', sessionId, items: [...items] }),
    )
    const loadedEvents = events ?? this.ctx.store.listEvents(sessionId)
    const live: LiveSession = {
      repo: row.repo,
      config: configFromEvents(this.ctx, row, loadedEvents),
      approver: new HostApprover(),
      queue,
      loadedEvents,
    }
    this.live.set(sessionId, live)
    return live
  }

  providerConfig(config: SessionConfig): ReturnType<typeof providerConfigOf> {
    return providerConfigOf(this.ctx, config)
  }

  /**
   * The session object of a live session, loaded on its first turn. The provider is built
   * again when what it is built from changed since (a key saved, a window setting changed).
   */
  private async sessionOf(sessionId: string, live: LiveSession): Promise<Session> {
    const provider = providerConfigOf(this.ctx, live.config)
    if (!live.session) {
      live.session = await Session.load(
        this.ctx.store,
        sessionId,
        this.sessionSetup(live.repo, live.config, live.approver, live.queue),
        this.takeLoadedEvents(sessionId, live),
      )
      this.loadedWith.set(live.session, provider)
    } else if (!sameProviderConfig(this.loadedWith.get(live.session) ?? provider, provider)) {
      live.session.setModel(provider)
    }
    this.loadedWith.set(live.session, provider)
    return live.session
  }

  /** The events read when the live side was made, with those stored since; once, then dropped. */
  private takeLoadedEvents(sessionId: string, live: LiveSession): readonly StepwiseEvent[] | undefined {
    const loaded = live.loadedEvents
    live.loadedEvents = undefined
    return loaded && eventsSince(this.ctx.store, sessionId, loaded)
  }

  /** The provider config each session object was last built with. */
  private readonly loadedWith = new WeakMap<Session, ReturnType<typeof providerConfigOf>>()

  private sessionSetup(
    repo: string,
    config: SessionConfig,
    approver: HostApprover,
    queue: MessageQueue,
  ): Parameters<typeof Session.load>[2] {
    return {
      repo,
      provider: providerConfigOf(this.ctx, config),
      policy: config.policy,
      approver,
      emit: this.ctx.broadcast,
      inbox: () => queue.take(),
    }
  }
}

function titleOf(text: string): string {
  const line = text.trim().split('\n')[0] ?? ''
  return line.length > 80 ? `${line.slice(0, 79)}…` : line || 'New chat'
}
