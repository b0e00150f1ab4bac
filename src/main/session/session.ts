import { PROTOCOL_VERSION, type ApprovalPolicy, type StepwiseEvent } from '../../shared/protocol'
import type { Agent, AgentOptions, TurnOutcome } from '../agent/loop'
import type { Approver } from '../agent/approvals'
import { buildSystemPrompt } from '../agent/prompt'
import { ruleFilesChangedSince } from '../agent/rule-files'
import { treeOutline } from '../context/repo-map'
import { warmTokenizer } from '../context/tokens'
import { createProvider } from '../providers'
import { warmHttp } from '../providers/warm-http'
import type { RetryOptions } from '../providers/retry'
import type { ModelProvider, ProviderConfig } from '../providers/types'
import { createSandbox } from '../containment/sandbox'
import { foreground } from '../foreground'
import type { Sandbox } from '../containment/types'
import type { Snapshotter } from '../snapshot/snapshotter'
import type { Store } from '../store/types'
import { liveTraces } from '../telemetry/live'
import { within } from '../telemetry/live-traces'
import { allTools, toolSpecs } from '../tools/registry'
import type { ToolDefinition } from '../tools/types'
import { prepareCodeContext, type CodeContext } from './code-context'
import { collectGarbageNow } from './collect-garbage'
import { bindDataFolder } from './data-folder'
import { trackIgnored, type IgnoredTracking } from './ignored-tracking'
import { ignoredStateFile, skippedNotice, snapshotterFor } from './snapshotters'
import { DEFAULT_MAX_STEPS, playTurn, type TurnOptions } from './turn'

/**
 * A session, created (new) or loaded (stored), and the turns run on it: the seam every host drives
 * (the service's chats, `edit`, `sessions continue`, a fork's re-run, a review). It keeps what
 * outlives a turn — the sandbox, the provider, the snapshotter and baseline, the code index, repo
 * map and system prompt — and runs one turn at a time (turn.ts), each recorded between
 * `turn.started` and `turn.finished`, each continuing from the stored events however the last one
 * ended. `setModel` and `setPolicy` apply from the next turn (the policy at once, to the running
 * turn's next tool call too); `interrupt` stops the running turn, which still records its end.
 */

export interface SessionSetup {
  /** The project folder, already resolved. */
  repo: string
  provider: ProviderConfig
  policy: ApprovalPolicy
  /** Answers approvals unless a turn brings its own approver. */
  approver: Approver
  /** Called with each event after it is durably stored. */
  emit?: (event: StepwiseEvent) => void
  retry?: Partial<Omit<RetryOptions, 'signal' | 'onRetry'>>
  /** For tests: a provider built elsewhere. */
  providerOverride?: ModelProvider
  /** The tools offered instead of `allTools` (review offers read-only tools and its own). */
  tools?: readonly ToolDefinition[]
  /** Instructions appended to the system prompt (review's instructions). */
  systemExtra?: string
  /** Messages the user queued while a turn runs (the app's queue; AgentOptions.inbox). */
  inbox?: AgentOptions['inbox']
  /** Recorded in `session.started` (a new session); each turn's limit is its TurnOptions.maxSteps. */
  maxSteps?: number
}

export class SessionBusyError extends Error {
  override name = 'SessionBusyError'
}

interface Prepared {
  code: CodeContext
  system: string
}

interface Parts {
  sandbox: Sandbox
  snapshotter: Snapshotter
  baselineId: number
  /** What commands change under ignored folders, which snapshots leave out. */
  ignored: IgnoredTracking
}

export class Session {
  private provider: ModelProvider
  private policy: ApprovalPolicy
  private prepared: Promise<Prepared> | undefined
  /** The first request's warm-up (warmFirstRequest), until a turn has waited for it. */
  private warmed: Promise<void> | undefined
  /** The foreground held from a run's baseline to the end of its first turn (create, `eager`). */
  private startHold: (() => void) | undefined
  private current: { controller: AbortController; agent?: Agent } | undefined
  /** The events `load` read, handed to the first turn (with any stored since) instead of a second read. */
  private loaded: readonly StepwiseEvent[] | undefined
  private readonly emit: (event: StepwiseEvent) => void

  private readonly parts: Parts

  /** `opened`: what outlives a turn, and the provider the session starts with (`setModel` replaces it). */
  private constructor(
    private readonly store: Store,
    readonly id: string,
    private readonly setup: SessionSetup,
    opened: Parts & { provider: ModelProvider },
  ) {
    const { provider, ...parts } = opened
    this.parts = parts
    this.provider = provider
    this.policy = setup.policy
    this.emit = tracedEmit(setup.emit)
  }

  /**
   * Creates a new session on a project: its row, baseline snapshot and `session.started`.
   * `eager`: the code index and repo map are prepared beside the baseline (a run about to
   * start: `edit`, a review); otherwise the first turn prepares them (the app's "new chat"
   * answers at once).
   */
  static async create(
    store: Store,
    setup: SessionSetup & { title: string },
    opts: { eager?: boolean } = {},
  ): Promise<Session> {
    bindDataFolder(store)
    const sandbox = await createSandbox(setup.repo)
    const provider = setup.providerOverride ?? createProvider(setup.provider)
    const snapshotter = snapshotterFor(store, sandbox)
    // The project's first baseline reads the whole tree (the costly one): the index waits for it.
    const firstBaseline = opts.eager === true && !snapshotter.hasSnapshots()
    const created = createSessionRecord(store, setup, {
      sandbox,
      snapshotter,
      provider,
      emit: tracedEmit(setup.emit),
    })
    let prepared: Promise<Prepared> | undefined
    let warmed: Promise<void> | undefined
    let startHold: Promise<(() => void) | undefined> | undefined
    if (opts.eager) {
      let contextReady = false
      // Before the index's build is given the baseline's listing (below): this hears of it first.
      startHold = holdOnceBaselineIsTaken(created, () => !contextReady)
      // The baseline and the code index both mostly wait on the file system (and on their worker
      // threads): taken side by side, a big tree pays for the longer of the two. The new
      // baseline's listing serves the index's check (no second listing of 70,000 files).
      prepared = prepareContext(
        { store, sandbox, provider, systemExtra: setup.systemExtra },
        { listing: () => created.then(() => snapshotter.lastListing()), firstBaseline },
      )
      prepared.then(
        () => (contextReady = true),
        () => undefined,
      )
      warmed = warmFirstRequest(provider, setup, true)
    }
    const both = bothSettled(prepared ?? Promise.resolve(undefined), created)
    const [, { id, baselineId }] = await both.catch(async (err: unknown) => {
      ;(await startHold)?.()
      throw err
    })
    const session = new Session(store, id, setup, {
      sandbox,
      snapshotter,
      baselineId,
      ignored: trackIgnored(sandbox, snapshotter, [], ignoredStateFile(store, sandbox)),
      provider,
    })
    session.prepared = prepared
    session.warmed = warmed
    session.startHold = await startHold
    return session
  }

  /** A stored session (a chat after a restart, a fork): its baseline is the one its `session.started` names. */
  static async load(
    store: Store,
    sessionId: string,
    setup: SessionSetup,
    events: readonly StepwiseEvent[] = store.listEvents(sessionId),
  ): Promise<Session> {
    const started = events[0]
    if (started?.type !== 'session.started' || started.baselineSnapshotId === undefined)
      throw new Error(`session ${sessionId} has no session.started with a baseline: it cannot continue.`)
    bindDataFolder(store)
    const sandbox = await createSandbox(setup.repo)
    const provider = setup.providerOverride ?? createProvider(setup.provider)
    const snapshotter = snapshotterFor(store, sandbox)
    const session = new Session(store, sessionId, setup, {
      sandbox,
      snapshotter,
      baselineId: started.baselineSnapshotId,
      ignored: trackIgnored(sandbox, snapshotter, events, ignoredStateFile(store, sandbox)),
      provider,
    })
    session.loaded = events
    return session
  }

  get running(): boolean {
    return this.current !== undefined
  }

  get model(): { provider: string; model: string } {
    return { provider: this.provider.id, model: this.provider.model }
  }

  /**
   * Prepares what every turn's request needs (code index, repo map, system prompt), once per
   * session and model; returns what the user should know first (a project too big to index
   * whole, a project that is $HOME, …). A failure is thrown, and tried again next time.
   */
  async prepare(): Promise<string[]> {
    const { sandbox } = this.parts
    if (!this.prepared) {
      this.prepared = prepareContext({
        store: this.store,
        sandbox,
        provider: this.provider,
        systemExtra: this.setup.systemExtra,
      })
      this.warmed = warmFirstRequest(this.provider, this.setup)
    }
    const pending = this.prepared
    try {
      const { code } = await pending
      return [
        ...(sandbox.gate.rootWarning ? [sandbox.gate.rootWarning] : []),
        ...skippedNotice(sandbox.root),
        ...code.notices,
      ]
    } catch (err) {
      if (this.prepared === pending) this.prepared = undefined
      throw err
    }
  }

  /** Runs one turn to its end (turn.ts); refuses while another turn runs. */
  async runTurn(opts: TurnOptions = {}): Promise<TurnOutcome> {
    if (this.current)
      throw new SessionBusyError('A turn is already running in this session. Wait for it, or press Stop.')
    const current: NonNullable<Session['current']> = { controller: new AbortController() }
    this.current = current
    const stop = (): void => current.controller.abort()
    opts.signal?.addEventListener('abort', stop)
    if (opts.signal?.aborted) stop()
    const traces = liveTraces()
    try {
      await this.prepare()
      const { code, system } = await this.prepared!
      if (this.warmed) await within(this.warmed, WARM_WAIT_MS)
      this.warmed = undefined
      // Events stored by others since (a switch, a compaction) reach the live traces first.
      traces?.resume(this.id, this.store.listEvents(this.id))
      const events = this.loaded && eventsSince(this.store, this.id, this.loaded)
      this.loaded = undefined
      return await playTurn(
        {
          store: this.store,
          events,
          sessionId: this.id,
          emit: this.emit,
          ...this.parts,
          ignoredChanges: this.parts.ignored.ignoredChanges,
          beforeCommand: this.parts.ignored.beforeCommand,
          provider: this.provider,
          policy: this.policy,
          system,
          code,
          tools: this.setup.tools ?? allTools,
          approver: this.setup.approver,
          retry: this.setup.retry,
          inbox: this.setup.inbox,
          onAgent: (agent) => (current.agent = agent),
        },
        opts,
        current.controller.signal,
      )
    } finally {
      this.letGoOfStart()
      opts.signal?.removeEventListener('abort', stop)
      this.current = undefined
      // The turn's spans go out now, not at the next batch; a slow collector waits no longer.
      await traces?.flush(TRACE_FLUSH_MS)
    }
  }

  /** Lets go of what the session watches (the ignored folders); a running turn is stopped first. */
  close(): void {
    this.letGoOfStart()
    this.interrupt()
    this.parts.ignored.close()
  }

  private letGoOfStart(): void {
    this.startHold?.()
    this.startHold = undefined
  }

  /** Stops the running turn (it records its end); false when none runs. */
  interrupt(): boolean {
    if (!this.current) return false
    this.current.controller.abort()
    return true
  }

  /** The model for the next turn; the repo map is sized again for its window. */
  setModel(config: ProviderConfig): void {
    this.provider = createProvider(config)
    this.prepared = undefined
  }

  /** The approval policy, for the running turn's next tool call too. */
  setPolicy(policy: ApprovalPolicy): void {
    this.policy = policy
    this.current?.agent?.setPolicy(policy)
  }
}

/** `loaded` (a session's events read earlier) with the events stored since: the whole log, one read less. */
export function eventsSince(
  store: Store,
  sessionId: string,
  loaded: readonly StepwiseEvent[],
): readonly StepwiseEvent[] {
  const since = store.listEvents(sessionId, { afterSeq: loaded.at(-1)?.seq ?? 0 })
  return since.length > 0 ? loaded.concat(since) : loaded
}

/** How long a finished turn waits for the trace collector (live traces, telemetry/live.ts). */
const TRACE_FLUSH_MS = 1000

/** What the code context and system prompt are built from. */
interface ContextSources {
  store: Store
  sandbox: Sandbox
  provider: ModelProvider
  /** Instructions appended to the system prompt (SessionSetup.systemExtra). */
  systemExtra?: string
}

function prepareContext(
  { store, sandbox, provider, systemExtra }: ContextSources,
  opts: { listing?: () => Promise<ReturnType<Snapshotter['lastListing']>>; firstBaseline?: boolean } = {},
): Promise<Prepared> {
  const { listing, firstBaseline = false } = opts
  return prepareCodeContext(store, sandbox, provider, { listing, firstBaseline }).then((code) => {
    // A partial map (a big tree's index still building) gets the outline of the whole tree, from
    // the listing the baseline took: the first request never goes without the project's shape.
    const snapshotter = snapshotterFor(store, sandbox)
    const outline = code.index && !code.index.complete() ? snapshotter.lastListing()?.paths : undefined
    return {
      code,
      system: buildSystemPrompt(sandbox.root, {
        extra:
          [systemExtra, code.repoMap?.text, outline && treeOutline(outline)].filter(Boolean).join('\n\n') ||
          undefined,
      }).text,
    }
  })
}

/**
 * What the first request needs — token tables (~0.2 s of this thread), the tools' JSON schemas,
 * Node's HTTP client — loads while a big tree's baseline waits on its stat threads. For a session
 * whose first turn starts at once (`beforeFirstTurn`), the garbage of that load and of the
 * session's start is collected then too (collect-garbage.ts), so that V8's own full collection
 * does not fall in the turn's steps. It was skipped when the session was already ready, to send
 * the first request sooner; but in the later sessions on the bench tree that skipped it, the
 * collection and its marking came in the steps (later steps of 33–56 ms in 3 of 16 sessions,
 * none over 24 ms in 16 collecting always, with the same first requests: medians 1.06 s each;
 * docs/benchmarks.md). Not for a session prepared ahead of its turn (the app's, while the user
 * writes): a full collection there could pause another session's step. Resolves once the HTTP
 * client's warm-up is over (it never fails).
 */
export function warmFirstRequest(
  provider: ModelProvider,
  setup: Pick<SessionSetup, 'tools'>,
  beforeFirstTurn = false,
  collect: () => void = collectGarbageNow,
): Promise<void> {
  return new Promise((resolve) => {
    setImmediate(() => {
      warmTokenizer(provider.model)
      toolSpecs(setup.tools ?? allTools)
      const http = warmHttp()
      if (beforeFirstTurn) collect()
      void http.then(resolve)
    })
  })
}

/**
 * How long a turn waits for the warm-up (`warmFirstRequest`) still under way before its first
 * request. The HTTP warm-up is an exchange with a server of this process, a few event-loop turns
 * that the session's own work can push back: sent before it, the first request had the warm-up's
 * server and client work inside its first step (14 of 16 profiled sessions, docs/benchmarks.md).
 * Waited for, it is 15–18 ms before the request; the bound keeps a stalled warm-up from holding a turn.
 */
const WARM_WAIT_MS = 250

/**
 * A run about to start (`create`, `eager`) holds the foreground (foreground.ts) from the moment its
 * baseline is taken, as its turn will: on a big tree that moment is when the code index's build,
 * given the baseline's listing, would start its parse threads — beside the turn's first step,
 * which took 34–60 ms (median 42.5) instead of 24–39 (median 28.5; the bench tree's first session,
 * fourteen each, docs/benchmarks.md). Not while the session still waits on the build itself (a
 * small tree's first index, waited for so the first request holds its symbols): that wait is the
 * user's. Resolves to the hold's release, or undefined when none was taken; call it once the first
 * turn ends.
 */
export function holdOnceBaselineIsTaken(
  created: Promise<unknown>,
  waitingOnContext: () => boolean,
): Promise<(() => void) | undefined> {
  return created.then(
    () => (waitingOnContext() ? undefined : foreground.hold()),
    () => undefined,
  )
}

/** The host's listener, and the live trace export beside it (on only when OTEL_* says so). */
function tracedEmit(emit: SessionSetup['emit']): (event: StepwiseEvent) => void {
  const traces = liveTraces()
  if (!traces) return (event) => emit?.(event)
  return (event) => {
    traces.observe(event)
    emit?.(event)
  }
}

/** Both results once both are done, so a failure never leaves the other still writing to the store. */
async function bothSettled<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [ra, rb] = await Promise.allSettled([a, b])
  if (ra.status === 'rejected') throw ra.reason
  if (rb.status === 'rejected') throw rb.reason
  return [ra.value, rb.value]
}

async function createSessionRecord(
  store: Store,
  setup: SessionSetup & { title: string },
  deps: {
    sandbox: Sandbox
    snapshotter: Snapshotter
    provider: ModelProvider
    emit: (event: StepwiseEvent) => void
  },
): Promise<{ id: string; baselineId: number }> {
  const { sandbox, snapshotter, provider } = deps
  const session = store.createSession({
    repo: sandbox.root,
    title: setup.title.trim().split('\n')[0].slice(0, 120),
    provider: provider.id,
    model: provider.model,
  })
  const baseline = await snapshotter.takeSnapshot({ sessionId: session.id, label: 'baseline' })
  const ruleFilesChanged = ruleFilesChangedSince(store, session.id, sandbox.root)
  const started = store.appendEvent(session.id, {
    type: 'session.started',
    protocolVersion: PROTOCOL_VERSION,
    repo: sandbox.root,
    provider: provider.id,
    model: provider.model,
    baseUrl: provider.baseUrl,
    approvalPolicy: setup.policy,
    maxSteps: setup.maxSteps ?? DEFAULT_MAX_STEPS,
    baselineSnapshotId: baseline.info.id,
    ...(ruleFilesChanged.length > 0 ? { ruleFilesChanged } : {}),
  })
  deps.emit(started)
  return { id: session.id, baselineId: baseline.info.id }
}
