import path from 'node:path'
import { PROTOCOL_VERSION, type ApprovalPolicy, type StepwiseEvent } from '../../shared/protocol'
import { Agent, type AgentOptions, type TaskOutcome } from '../agent/loop'
import type { Approver } from '../agent/approvals'
import { buildSystemPrompt } from '../agent/prompt'
import { ruleFilesChangedSince } from '../agent/rule-files'
import { prepareCodeContext } from './code-context'
import { treeOutline } from '../context/repo-map'
import { bindDataFolder } from './data-folder'
import { warmTokenizer } from '../context/tokens'
import { createProvider } from '../providers'
import { warmHttp } from '../providers/http'
import type { RetryOptions } from '../providers/retry'
import type { ModelProvider, ProviderConfig } from '../providers/types'
import { createSandbox } from '../sandbox/sandbox'
import type { UnreadablePath } from '../sandbox/ripgrep'
import type { Sandbox } from '../sandbox/types'
import { listUnignoredDirectories } from '../snapshot/directories'
import { createIgnoredFolders } from '../snapshot/ignoredFolders'
import { stateFileIn } from '../snapshot/savedState'
import { createSnapshotter, type Snapshotter } from '../snapshot/snapshotter'
import { liveTraces } from '../telemetry/live'
import type { Store } from '../store/types'
import { createReadTracker } from '../tools/read-tracker'
import { allTools, toolSpecs } from '../tools/registry'
import type { ToolContext, ToolDefinition, ToolLimits } from '../tools/types'
import { verifyProject, type CommandSettings } from '../exec'

export const DEFAULT_LIMITS: ToolLimits = { maxReadBytes: 400 * 1024, maxWriteBytes: 800 * 1024 }
export const DEFAULT_MAX_STEPS = 50

export interface SessionSetup {
  /** The project folder, already resolved. */
  repo: string
  provider: ProviderConfig
  policy: ApprovalPolicy
  /** Most model turns in one task. */
  maxSteps?: number
  /** Most tool calls in one task (the agent's default, 50, when absent). */
  maxToolCalls?: number
  approver: Approver
  emit?: (event: StepwiseEvent) => void
  limits?: ToolLimits
  retry?: Partial<Omit<RetryOptions, 'signal' | 'onRetry'>>
  /** For tests: a provider built elsewhere. */
  providerOverride?: ModelProvider
  /**
   * --until-green: verify build and tests when the model says it is done and repair
   * up to maxRounds. `verify` defaults to the project's own build and test commands.
   */
  repair?: { maxRounds: number; verify?: NonNullable<AgentOptions['repair']>['verify'] }
  /** The user's command settings (allow/deny lists, network, timeouts); defaults when absent. */
  commands?: CommandSettings
  /** The tools offered instead of `allTools` (review offers read-only tools and its own). */
  tools?: readonly ToolDefinition[]
  /** Instructions appended to the system prompt (review's instructions). */
  systemExtra?: string
  /**
   * Continue a session that already exists (a fork, timetravel/fork.ts) instead of
   * opening one: no new row, baseline or `session.started`; the agent starts from
   * this transcript and runs without adding `task` as a user message — unless
   * `message` is set: the user's next message in a chat that continues the session.
   */
  resume?: { sessionId: string; message?: string } & NonNullable<AgentOptions['resume']>
  /** MCP servers' tools (mcp/manager.ts), started by the host before the run; their instructions join the system prompt. */
  mcp?: AgentOptions['mcp'] & { instructions?(): string | undefined }
  /** Messages the user queued while the turn runs (the app's queue; AgentOptions.inbox). */
  inbox?: AgentOptions['inbox']
  /** Who reads a model error's advice (default: the CLI's user). */
  audience?: AgentOptions['audience']
}

export interface StartedSession {
  sessionId: string
  /** What the user should know before the run (a project too big to index whole, …). */
  notices: string[]
  /** Runs the task the session was opened with, to its end. */
  run(signal: AbortSignal): Promise<TaskOutcome>
  /** Changes the approval policy, for the running task too (the user switched it in the app). */
  setPolicy(policy: ApprovalPolicy): void
}

/**
 * One snapshotter per store and project root, kept across sessions: its in-memory
 * stat and listing caches and its file watches are what make a checkpoint of a
 * big tree cost what changed. Keyed by the sandbox's rules too, since they decide
 * what is listed. `oneShot`: the process takes this one snapshot and ends (a CLI
 * undo), so the directory walk and the watches, which only pay off in later
 * snapshots, are left out.
 */
const snapshotters = new WeakMap<Store, Map<string, Snapshotter>>()

/** What the last snapshot listing of each project could not reach (Sandbox.listFiles#skipped). */
const skippedByRoot = new Map<string, UnreadablePath[]>()

/** Said once, at a session's start: the paths its snapshots and listings leave out, and why. */
function skippedNotice(root: string): string[] {
  const skipped = skippedByRoot.get(root) ?? []
  if (skipped.length === 0) return []
  const first = skipped[0]
  const more = skipped.length > 1 ? ` and ${skipped.length - 1} more` : ''
  return [
    `${skipped.length} path(s) skipped: listings, snapshots and checkpoints leave out "${first.path}"${more}: ${first.reason}.`,
  ]
}

export function snapshotterFor(
  store: Store,
  sandbox: Sandbox,
  opts: { oneShot?: boolean } = {},
): Snapshotter {
  let byRoot = snapshotters.get(store)
  if (!byRoot) snapshotters.set(store, (byRoot = new Map()))
  const key = `${sandbox.root}\0${sandbox.denyPatterns.join('\0')}\0${opts.oneShot ? 'once' : 'kept'}`
  let snapshotter = byRoot.get(key)
  if (!snapshotter) {
    const listFiles = async () => {
      const listed = await sandbox.listFiles()
      skippedByRoot.set(sandbox.root, listed.skipped ?? [])
      return listed.files
    }
    snapshotter = opts.oneShot
      ? createSnapshotter(store.db, { root: sandbox.root, listFiles })
      : createSnapshotter(store.db, {
          root: sandbox.root,
          listFiles,
          listDirectories: () => listUnignoredDirectories(sandbox.root, (rel) => sandbox.isIgnored(rel)),
          isIgnored: (rel) => sandbox.isIgnored(rel),
          watch: true,
          stateFile: snapshotStateFile(store, sandbox),
        })
    byRoot.set(key, snapshotter)
  }
  return snapshotter
}

/**
 * Stops the file watches of every snapshotter kept for `store`, before the store
 * closes (a CLI run ending). A later session on the store builds them afresh.
 */
export function closeSnapshotters(store: Store): void {
  for (const snapshotter of snapshotters.get(store)?.values() ?? []) snapshotter.close()
  snapshotters.delete(store)
}

/**
 * Where the snapshotter leaves its listing and stats for the next process
 * (snapshot/savedState.ts): beside the store's database, per root and deny list.
 * None for a database in memory.
 */
function snapshotStateFile(store: Store, sandbox: Sandbox): string | undefined {
  const file = store.db.name
  if (!file || file === ':memory:' || !path.isAbsolute(file)) return undefined
  return stateFileIn(path.dirname(file), sandbox.root, sandbox.denyPatterns)
}

/**
 * Starts a new session's baseline ahead of `startSession`, for a host with setup of
 * its own to do first (probing the command sandbox, starting MCP servers): the saved
 * listing loads and a big tree's stats (~0.2 s for 70,000 files) run on helper
 * threads meanwhile. The baseline shows the tree as of this call.
 */
export async function prepareBaseline(store: Store, repo: string): Promise<void> {
  bindDataFolder(store)
  snapshotterFor(store, await createSandbox(repo)).prepare()
}

/**
 * Opens a session on a project: sandbox, session row, baseline snapshot,
 * `session.started`, and an agent ready to run the task. Everything is stored
 * before it is emitted.
 */
export async function startSession(
  store: Store,
  setup: SessionSetup & { task: string },
): Promise<StartedSession> {
  const traces = liveTraces()
  if (traces) setup = { ...setup, emit: tracedEmit(traces, setup.emit) }
  bindDataFolder(store)
  const sandbox = await createSandbox(setup.repo)
  const provider = setup.providerOverride ?? createProvider(setup.provider)
  const maxSteps = setup.maxSteps ?? DEFAULT_MAX_STEPS
  const snapshotter = snapshotterFor(store, sandbox)
  // Ignored folders stay out of snapshots; a stat-only record of them, taken before the session's
  // first command (file tools cannot write there), lets review list what a command changed there
  // (snapshot/ignoredFolders.ts). A session that runs no command never walks them.
  const ignoredFolders = setup.resume
    ? undefined
    : createIgnoredFolders(sandbox.root, (rel) => sandbox.isIgnored(rel), {
        listed: () => snapshotter.lastListing()?.paths,
      })
  let ignoredRecorded: Promise<unknown> | undefined
  // The baseline and the code index both mostly wait on the file system (and on their
  // worker threads): taken side by side, a big tree pays for the longer of the two.
  const opened = setup.resume
    ? Promise.resolve(setup.resume).then((r) => resumedSession(r.sessionId, r.events))
    : openNewSession(store, setup, { sandbox, snapshotter, provider, maxSteps })
  // A new session's baseline has just listed and stat'ed the tree: the index's check uses
  // that instead of listing 70,000 files again (~0.3 s of ripgrep) and stat'ing them, and
  // skips when the tree is as it was at a check that found the index true of it.
  const listing = setup.resume ? undefined : () => opened.then(() => snapshotter.lastListing())
  const coded = prepareCodeContext(store, sandbox, provider, undefined, { listing })
  // What the first request needs — token tables (~0.2 s of this thread), the tools' JSON
  // schemas, Node's HTTP client — loads while a big tree's baseline waits on its stat
  // threads, instead of after it.
  setImmediate(() => {
    warmTokenizer(provider.model)
    toolSpecs(setup.tools ?? allTools)
    warmHttp()
  })
  const [code, { session, baselineId }] = await bothSettled(coded, opened)
  // A partial map (a big tree's index still building) gets the outline of the whole tree, from
  // the listing the baseline has just taken: the first request never goes without the project's shape.
  const outline = code.index && !code.index.complete() ? snapshotter.lastListing()?.paths : undefined
  const system = buildSystemPrompt(sandbox.root, {
    extra:
      [setup.systemExtra, setup.mcp?.instructions?.(), code.repoMap?.text, outline && treeOutline(outline)]
        .filter(Boolean)
        .join('\n\n') || undefined,
  })
  if (setup.resume) traces?.resume(session.id, [...setup.resume.events])
  const baseline = { info: { id: baselineId } }
  let policy = setup.policy
  let agent: Agent | undefined
  return {
    sessionId: session.id,
    // A project that is $HOME, `/` or holds the data folder: said first, in every host.
    notices: [
      ...(sandbox.gate.rootWarning ? [sandbox.gate.rootWarning] : []),
      ...skippedNotice(sandbox.root),
      ...code.notices,
    ],
    setPolicy(next) {
      policy = next
      agent?.setPolicy(next)
    },
    async run(signal) {
      const toolContext: ToolContext = {
        root: sandbox.root,
        sandbox,
        reads: createReadTracker(),
        limits: setup.limits ?? DEFAULT_LIMITS,
        baseline: snapshotter.baselineReader(baseline.info.id),
        ignoredChanges:
          ignoredFolders &&
          (async () => {
            if (!ignoredRecorded) return []
            await ignoredRecorded
            return ignoredFolders.changes()
          }),
        beforeCommand:
          ignoredFolders &&
          (async () => {
            await (ignoredRecorded ??= ignoredFolders.record().catch(() => undefined))
          }),
        commands: setup.commands,
        index: code.index,
        signal,
      }
      const repair = setup.repair && {
        maxRounds: setup.repair.maxRounds,
        verify:
          setup.repair.verify ??
          ((verifySignal: AbortSignal) => verifyProject({ ...toolContext, signal: verifySignal })),
      }
      agent = new Agent({
        store,
        sessionId: session.id,
        provider,
        tools: setup.tools ?? allTools,
        toolContext,
        checkpoints: snapshotter,
        approver: setup.approver,
        policy,
        maxSteps,
        maxToolCalls: setup.maxToolCalls,
        system: system.text,
        emit: setup.emit,
        retry: setup.retry,
        repair,
        resume: setup.resume,
        mcp: setup.mcp,
        inbox: setup.inbox,
        audience: setup.audience,
      })
      const watcher = code.watch()
      // This process runs the session now: it reads as running while this process lives (store/liveness.ts).
      store.setSessionStatus(session.id, 'running')
      try {
        const message = setup.resume ? setup.resume.message : setup.task
        const outcome =
          message === undefined ? await agent.continueTask(signal) : await agent.runTask(message, signal)
        store.setSessionStatus(session.id, outcome.reason === 'done' ? 'done' : outcome.reason)
        return outcome
      } finally {
        ignoredFolders?.close()
        await watcher?.close()
        // The turn's spans go out now, not at the next batch; a slow collector waits no longer.
        await traces?.flush(TRACE_FLUSH_MS)
      }
    },
  }
}

/** How long a finished run waits for the trace collector (live traces, telemetry/live.ts). */
const TRACE_FLUSH_MS = 1000

/** The host's listener, and the live trace export beside it (on only when OTEL_* says so). */
function tracedEmit(
  traces: NonNullable<ReturnType<typeof liveTraces>>,
  emit: SessionSetup['emit'],
): (event: StepwiseEvent) => void {
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

/**
 * Opens a session without running anything (the app's "new chat"): its row,
 * baseline snapshot and `session.started`. Turns then continue it (`resume`).
 */
export async function openSession(
  store: Store,
  setup: Pick<SessionSetup, 'repo' | 'provider' | 'policy' | 'maxSteps' | 'emit'> & { title: string },
): Promise<string> {
  bindDataFolder(store)
  const sandbox = await createSandbox(setup.repo)
  const provider = createProvider(setup.provider)
  const snapshotter = snapshotterFor(store, sandbox)
  const maxSteps = setup.maxSteps ?? DEFAULT_MAX_STEPS
  const { session } = await openNewSession(
    store,
    { ...setup, task: setup.title },
    { sandbox, snapshotter, provider, maxSteps },
  )
  return session.id
}

async function openNewSession(
  store: Store,
  setup: Pick<SessionSetup, 'policy' | 'emit'> & { task: string },
  deps: { sandbox: Sandbox; snapshotter: Snapshotter; provider: ModelProvider; maxSteps: number },
): Promise<{ session: { id: string }; baselineId: number }> {
  const { sandbox, snapshotter, provider, maxSteps } = deps
  const session = store.createSession({
    repo: sandbox.root,
    title: setup.task.trim().split('\n')[0].slice(0, 120),
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
    maxSteps,
    baselineSnapshotId: baseline.info.id,
    ...(ruleFilesChanged.length > 0 ? { ruleFilesChanged } : {}),
  })
  setup.emit?.(started)
  return { session, baselineId: baseline.info.id }
}

/** A session opened elsewhere (a fork): its baseline is the one its `session.started` names. */
function resumedSession(
  sessionId: string,
  events: readonly StepwiseEvent[],
): { session: { id: string }; baselineId: number } {
  const started = events[0]
  if (started?.type !== 'session.started' || started.baselineSnapshotId === undefined)
    throw new Error(`resume: session ${sessionId} has no session.started with a baseline`)
  return { session: { id: sessionId }, baselineId: started.baselineSnapshotId }
}
