import { create } from 'zustand'
import {
  isHostNotice,
  type AppSettings,
  type CommandInput,
  type CommandName,
  type CommandOutput,
  type HostMessage,
  type HostNotice,
  type StepwiseEvent,
} from '../../../shared/protocol'
import { emptySessionView, reduceEvent, reduceEvents, type SessionView } from '../../../shared/reducer'
import type { StepwiseApi } from '../../../preload/api'
import { errorMessage } from '../../../shared/errors'

/**
 * The renderer's state: the open project, the session list, and the open
 * session as `reduce(events)` through the shared reducer — live and replayed alike.
 * Events arrive from the host one by one and are applied in batches, once per
 * animation frame, so a burst of hundreds per second costs one render a frame.
 */

export type AppInfo = CommandOutput<'app/info'>
export type SessionSummary = CommandOutput<'session/list'>['sessions'][number]
export type Project = CommandOutput<'project/open'>
export type ApprovalRequest = Extract<StepwiseEvent, { type: 'approval.requested' }>
export type PullProgress = Extract<HostNotice, { type: 'host.pull-progress' }>

export interface Toast {
  id: number
  kind: 'error' | 'info'
  text: string
  /** One button beside the text (the toast closes when it is pressed). */
  action?: { label: string; run: () => void }
}

export interface AppState {
  info: AppInfo | null
  settings: AppSettings | null
  project: Project | null
  sessions: SessionSummary[]
  sessionId: string | null
  /** The open session's events, in seq order. */
  events: StepwiseEvent[]
  view: SessionView
  /** Approval requests of the open session still waiting, by call id. */
  approvals: Record<string, ApprovalRequest>
  selectedSeq: number | null
  /** A time range brushed on the timeline's overview (epoch ms): the rows show only its steps. */
  brush: { from: number; to: number } | null
  pulls: Record<string, PullProgress>
  toasts: Toast[]
  /** A turn is being started (the project is prepared) but has not emitted yet. */
  starting: boolean
  /** The failed turn whose Retry / Skip / Abort the user dismissed (its last seq). */
  dismissedErrorSeq: number | null
  /** Messages sent while a turn ran, waiting for its next step, by session id. */
  queued: Record<string, QueuedMessage[]>
}

export type QueuedMessage = Extract<HostNotice, { type: 'host.queue-changed' }>['items'][number]

const initial: AppState = {
  info: null,
  settings: null,
  project: null,
  sessions: [],
  sessionId: null,
  events: [],
  view: emptySessionView,
  approvals: {},
  selectedSeq: null,
  brush: null,
  pulls: {},
  toasts: [],
  starting: false,
  dismissedErrorSeq: null,
  queued: {},
}

export const useApp = create<AppState>(() => initial)

/** The state of "no chat open": opening a project, or deleting the open chat, sets it. */
export const NO_OPEN_SESSION = {
  sessionId: null,
  events: [],
  view: emptySessionView,
  approvals: {},
  selectedSeq: null,
  brush: null,
} satisfies Partial<AppState>

let api: StepwiseApi | null = null
let toastId = 0

export function getApi(): StepwiseApi {
  if (!api) throw new Error('The host connection is not set up yet.')
  return api
}

/** Calls the core; a refusal becomes a toast and rethrows, so callers can keep the user's input. */
export async function invoke<C extends CommandName>(
  command: C,
  input: CommandInput<C>,
): Promise<CommandOutput<C>> {
  try {
    return await getApi().invoke(command, input)
  } catch (err) {
    toast('error', errorMessage(err))
    throw err
  }
}

export function toast(kind: Toast['kind'], text: string, action?: Toast['action']): void {
  const id = ++toastId
  useApp.setState((s) => ({ toasts: [...s.toasts.slice(-4), { id, kind, text, action }] }))
  // One with a button stays long enough to reach it.
  setTimeout(() => dismissToast(id), kind === 'error' || action ? 10_000 : 4000)
}

/** A note for work of unknown length: it stays until the returned function is called. */
export function workingToast(text: string): () => void {
  const id = ++toastId
  useApp.setState((s) => ({ toasts: [...s.toasts.slice(-4), { id, kind: 'info', text }] }))
  return () => dismissToast(id)
}

export function dismissToast(id: number): void {
  useApp.setState((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }))
}

// ---- events -------------------------------------------------------------------------------------

let queue: StepwiseEvent[] = []
let frame: number | null = null

function applyQueued(): void {
  frame = null
  const batch = queue
  queue = []
  const s = useApp.getState()
  const mine = batch.filter((e) => e.sessionId === s.sessionId && e.seq > s.view.lastSeq)
  if (mine.length === 0) return
  let view = s.view
  let approvals = s.approvals
  for (const e of mine) {
    view = reduceEvent(view, e)
    if (e.type === 'approval.requested') approvals = { ...approvals, [e.callId]: e }
    else if (e.type === 'approval.resolved' || (e.type === 'tool.finished' && approvals[e.callId])) {
      const { [e.callId]: _gone, ...rest } = approvals
      approvals = rest
    } else if (e.type === 'session.finished') approvals = {}
  }
  useApp.setState({ events: s.events.concat(mine), view, approvals })
}

function onNotice(notice: HostNotice): void {
  switch (notice.type) {
    case 'host.pull-progress':
      useApp.setState((s) => ({ pulls: { ...s.pulls, [notice.model]: notice } }))
      if (notice.done && notice.error) toast('error', `Pulling ${notice.model} failed: ${notice.error}`)
      return
    case 'host.sessions-changed':
      void refreshSessions()
      return
    case 'host.turn-ended':
      return
    case 'host.queue-changed':
      useApp.setState((s) => ({ queued: { ...s.queued, [notice.sessionId]: notice.items } }))
      return
    case 'host.index-progress':
    case 'host.mcp-status':
      return
  }
}

function onMessage(message: HostMessage): void {
  if (isHostNotice(message)) return onNotice(message)
  queue.push(message)
  // Flush within a frame; a hidden tab gets no frames, so a timer backs it up.
  if (frame === null) {
    frame = requestAnimationFrame(applyQueued)
    setTimeout(() => frame !== null && (cancelAnimationFrame(frame), applyQueued()), 40)
  }
}

// ---- actions ------------------------------------------------------------------------------------

export async function connect(hostApi: StepwiseApi): Promise<void> {
  api = hostApi
  hostApi.onEvent(onMessage)
  const [info, settings] = await Promise.all([invoke('app/info', {}), invoke('settings/get', {})])
  useApp.setState({ info, settings })
  for (const notice of info.notices) toast('info', notice)
  if (info.startProject) await openProject(info.startProject)
  else await refreshSessions()
}

export async function refreshSessions(): Promise<void> {
  const repo = useApp.getState().project?.repo
  const { sessions } = await invoke('session/list', repo ? { repo } : {})
  useApp.setState({ sessions })
}

export async function openProject(repo: string): Promise<void> {
  const project = await invoke('project/open', { repo })
  useApp.setState({ project, ...NO_OPEN_SESSION })
  // The folder is $HOME, `/` or holds the data folder: said at once, and kept in the status bar.
  if (project.warning) toast('error', project.warning)
  await refreshSessions()
  const info = await invoke('app/info', {})
  useApp.setState({ info })
  // Back where the user left off: the session last opened here, else the newest.
  const { sessions, sessionId } = useApp.getState()
  if (sessionId || sessions.length === 0) return
  const last = lastSessionOf(project.repo)
  const pick =
    sessions.find((x) => x.id === last) ?? [...sessions].sort((a, b) => b.updatedAt - a.updatedAt)[0]
  await loadSession(pick.id)
}

const LAST_SESSION_KEY = 'stepwise.last-session:'

function lastSessionOf(repo: string): string | null {
  try {
    return globalThis.localStorage?.getItem(LAST_SESSION_KEY + repo) ?? null
  } catch {
    return null
  }
}

function rememberSession(repo: string, sessionId: string): void {
  try {
    globalThis.localStorage?.setItem(LAST_SESSION_KEY + repo, sessionId)
  } catch {
    // Storage off: the newest session opens instead.
  }
}

/** Loads a stored session: its whole history through the reducer, then live events on top. */
export async function loadSession(sessionId: string): Promise<void> {
  useApp.setState({ ...NO_OPEN_SESSION, sessionId })
  const { events: typed } = await invoke('session/events', { sessionId })
  if (useApp.getState().sessionId !== sessionId) return
  const view = reduceEvents(typed)
  const approvals: Record<string, ApprovalRequest> = {}
  for (const e of typed) {
    if (e.type === 'approval.requested' && view.pendingApprovals.includes(e.callId)) approvals[e.callId] = e
  }
  useApp.setState({ events: typed, view, approvals })
  if (view.repo) rememberSession(view.repo, sessionId)
  const project = useApp.getState().project
  if (!project || project.repo !== view.repo) {
    if (view.repo) {
      useApp.setState({ project: await invoke('project/open', { repo: view.repo }) })
      // Another folder (a fork in its worktree, its parent): the list shows that folder's sessions.
      await refreshSessions()
    }
  }
}

type ModelChoice = Pick<CommandInput<'session/create'>, 'provider' | 'model' | 'baseUrl'>
let modelChoice: () => ModelChoice | undefined = () => undefined

/** The model picker tells the store which model new sessions start on. */
export function provideModelChoice(choice: () => ModelChoice | undefined): void {
  modelChoice = choice
}

export async function newSession(): Promise<string> {
  const s = useApp.getState()
  if (!s.project) throw new Error('Open a project first.')
  const { sessionId } = await invoke('session/create', { repo: s.project.repo, ...modelChoice() })
  await loadSession(sessionId)
  return sessionId
}

/** Sends a message: opens a session first when none is open. Rejects (keeping the text) on refusal. */
export async function send(text: string, opts: { untilGreen?: boolean } = {}): Promise<void> {
  useApp.setState({ starting: true })
  try {
    const sessionId = useApp.getState().sessionId ?? (await newSession())
    await invoke('turn/start', { sessionId, text, ...(opts.untilGreen ? { untilGreen: true } : {}) })
  } finally {
    useApp.setState({ starting: false })
  }
}

/**
 * A message sent while the agent works: queued, it reaches the model at the next step boundary
 * (or starts a turn, when the running one ended meanwhile). Rejects (keeping the text) on refusal.
 */
export async function enqueue(text: string): Promise<void> {
  const { sessionId } = useApp.getState()
  if (!sessionId) return send(text)
  await invoke('queue/add', { sessionId, text })
}

export async function editQueued(id: string, text: string): Promise<void> {
  const { sessionId } = useApp.getState()
  if (sessionId) await invoke('queue/update', { sessionId, id, text })
}

export async function cancelQueued(id: string): Promise<void> {
  const { sessionId } = useApp.getState()
  if (sessionId) await invoke('queue/remove', { sessionId, id })
}

/** Sends what stayed queued after a stop or an error, as the next turn's message. */
export async function sendQueued(): Promise<void> {
  const { sessionId } = useApp.getState()
  if (sessionId) await invoke('queue/flush', { sessionId })
}

export async function stop(): Promise<void> {
  const { sessionId } = useApp.getState()
  if (sessionId) await invoke('turn/interrupt', { sessionId })
}

export function select(seq: number | null): void {
  useApp.setState({ selectedSeq: seq })
}

/** Filters the rows to a time range of the overview (null shows them all again). */
export function setBrush(brush: { from: number; to: number } | null): void {
  useApp.setState({ brush: brush && brush.to > brush.from ? brush : null })
}

export async function saveSettings(patch: Partial<AppSettings>): Promise<void> {
  const settings = await invoke('settings/set', patch)
  useApp.setState({ settings })
}

export function isBusy(s: Pick<AppState, 'view' | 'sessions' | 'sessionId' | 'starting'>): boolean {
  if (s.starting) return true
  const status = s.view.status
  return status === 'thinking' || status === 'running-tool' || status === 'waiting'
}
