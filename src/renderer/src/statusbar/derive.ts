import type { CommandOutput, StepwiseEvent } from '../../../shared/protocol'
import type { SessionView } from '../../../shared/reducer'
import { formatTokens } from '../timeline/format'

/** Pure pieces of the status bar: the session's state, the context meter, the clock. */

export type SessionStateKey =
  'none' | 'ready' | 'thinking' | 'running-tool' | 'waiting' | 'error' | 'finished' | 'stopped' | 'step-limit'

export interface SessionState {
  key: SessionStateKey
  label: string
  /** More about it (the error, the finish message), for a tooltip. */
  detail?: string
}

type StateInput = Pick<SessionView, 'status' | 'finishReason' | 'finishMessage' | 'steps'>

export function sessionState(view: StateInput, hasSession: boolean, starting: boolean): SessionState {
  if (starting) return { key: 'thinking', label: 'thinking' }
  if (!hasSession) return { key: 'none', label: 'ready' }
  switch (view.status) {
    case 'thinking':
      return { key: 'thinking', label: 'thinking' }
    case 'running-tool':
      return { key: 'running-tool', label: 'running tool' }
    case 'waiting':
      return { key: 'waiting', label: 'waiting for you' }
    case 'finished': {
      const detail = view.finishMessage ?? lastError(view)?.message
      if (view.finishReason === 'error') return { key: 'error', label: 'error', detail }
      if (view.finishReason === 'interrupted') return { key: 'stopped', label: 'stopped', detail }
      if (view.finishReason === 'step-limit')
        return { key: 'step-limit', label: 'step limit reached', detail }
      return { key: 'finished', label: 'finished', detail }
    }
    case 'idle': {
      const last = view.steps[view.steps.length - 1]
      if (last?.kind === 'error') return { key: 'error', label: 'error', detail: last.message }
      return { key: 'ready', label: 'ready' }
    }
  }
}

function lastError(view: StateInput): { message: string } | undefined {
  for (let i = view.steps.length - 1; i >= 0; i--) {
    const step = view.steps[i]
    if (step.kind === 'error') return step
    if (step.kind === 'user') return undefined
  }
  return undefined
}

export interface ContextUse {
  usedTokens: number
  windowTokens: number
  /**
   * Whose count: the server's, or Stepwise's own estimate (the server reported less, as a
   * prompt cache makes Ollama do, or nothing; or a compaction since). Absent in older sessions.
   */
  source?: 'reported' | 'estimated'
}

/**
 * How full the context window is: the last model request's count, or what a compaction after it
 * brought it down to. Null before the first answer that carried a count.
 */
export function contextUse(events: readonly StepwiseEvent[]): ContextUse | null {
  let compactedTo: number | null = null
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]
    if (e.type === 'context.compacted' && compactedTo === null) compactedTo = e.afterTokens
    if (e.type === 'assistant.message' && e.context) {
      const { usedTokens, windowTokens, promptSource } = e.context
      // After a compaction the count is ours.
      const source = compactedTo !== null ? 'estimated' : promptSource
      return { usedTokens: compactedTo ?? usedTokens, windowTokens, ...(source ? { source } : {}) }
    }
  }
  return null
}

export type Baseline = CommandOutput<'context/baseline'>

/** What the meter shows: a count, and the window when it is known. */
export interface MeterReading {
  usedTokens: number
  /** Null: nothing knows the window (the session runs on a guess); the meter says so. */
  windowTokens: number | null
  /** `baseline`: no answer yet, what the first request already takes. */
  source?: 'reported' | 'estimated' | 'baseline'
  baseline?: Baseline
}

/**
 * The meter from the last answer's count, else (before the first answer) from the baseline the
 * core measured. The window is the baseline's when there is one: what the next request runs in
 * (a window just set applies at once), and an unknown window stays unknown even after answers,
 * whose window was a guess.
 */
export function meterReading(use: ContextUse | null, baseline: Baseline | null): MeterReading | null {
  if (use) {
    return {
      usedTokens: use.usedTokens,
      windowTokens: baseline ? baseline.windowTokens : use.windowTokens,
      ...(use.source ? { source: use.source } : {}),
      ...(baseline ? { baseline } : {}),
    }
  }
  if (!baseline) return null
  return {
    usedTokens: baseline.totalTokens,
    windowTokens: baseline.windowTokens,
    source: 'baseline',
    baseline,
  }
}

function breakdown(b: Baseline): string {
  const parts = [`system prompt ${formatTokens(b.systemTokens)}`, `tools ${formatTokens(b.toolsTokens)}`]
  if (b.rulesTokens > 0) parts.push(`project rules ${formatTokens(b.rulesTokens)}`)
  if (b.repoMapTokens > 0) parts.push(`repo map ${formatTokens(b.repoMapTokens)}`)
  return parts.join(', ')
}

export function meterPercent(r: MeterReading): number | null {
  return r.windowTokens === null
    ? null
    : percentUsed({ usedTokens: r.usedTokens, windowTokens: r.windowTokens })
}

/** How to set an unknown window, in the app's own words (the host's hint names CLI flags). */
export const SET_WINDOW_HINT = 'Set it in the model picker, under Context window.'

/** What the meter measures, shown when it is opened: plain words, no flags. */
export const METER_MEANS =
  'How much of what the model can read at once this chat takes up: the conversation so far, and the ' +
  'instructions, tools and project rules sent with every message. When it fills up, older steps are ' +
  'summarised to make room.'

export function meterLabel(r: MeterReading | null): string {
  if (!r) return 'Context window: not measured yet'
  if (r.windowTokens === null) {
    const what = r.source === 'baseline' && r.baseline ? ` (${breakdown(r.baseline)})` : ''
    return `Context window unknown: about ${formatTokens(r.usedTokens)} tokens in use${what}. ${SET_WINDOW_HINT}`
  }
  if (r.source === 'baseline' && r.baseline) {
    const percent = meterPercent(r)
    return `Context window ~${percent}% used before the first message (~${formatTokens(r.usedTokens)} of ${formatTokens(r.windowTokens)} tokens: ${breakdown(r.baseline)})`
  }
  return contextLabel({
    usedTokens: r.usedTokens,
    windowTokens: r.windowTokens,
    ...(r.source && r.source !== 'baseline' ? { source: r.source } : {}),
  })
}

/** The meter's short text: "~" marks an estimate, "?" an unknown window. */
export function meterShort(r: MeterReading | null): string {
  if (!r) return '–'
  if (r.windowTokens === null) return `${formatTokens(r.usedTokens)} / ?`
  const approx = r.source === 'estimated' || r.source === 'baseline' ? '~' : ''
  return `${approx}${meterPercent(r)}%`
}

/** Whole percent used; may pass 100 if a server counted over its window. */
export function percentUsed(use: ContextUse): number {
  if (use.windowTokens <= 0) return 0
  return Math.round((use.usedTokens / use.windowTokens) * 100)
}

export function contextLabel(use: ContextUse | null): string {
  if (!use) return 'Context window: not measured yet'
  const counts = `${formatTokens(use.usedTokens)} of ${formatTokens(use.windowTokens)} tokens`
  if (use.source === 'estimated')
    return `Context window about ${percentUsed(use)}% used (~${counts}; estimated by Stepwise: the server reported fewer tokens or none)`
  if (use.source === 'reported')
    return `Context window ${percentUsed(use)}% used (${counts}, as the server counted them)`
  return `Context window ${percentUsed(use)}% used (${counts})`
}

/** How the meter is coloured: calm, filling up, or about to compact or overflow. */
export function contextLevel(percent: number): 'ok' | 'high' | 'full' {
  return percent >= 90 ? 'full' : percent >= 70 ? 'high' : 'ok'
}

const RUNNING = new Set<SessionView['status']>(['thinking', 'running-tool', 'waiting'])

export function isRunning(view: Pick<SessionView, 'status'>): boolean {
  return RUNNING.has(view.status)
}

/**
 * The session's time: from its start to now while a turn runs, else to the end of its last turn.
 * Null before it started.
 */
export function elapsedMs(
  view: Pick<SessionView, 'status' | 'startedAt' | 'finishedAt'>,
  now: number,
): number | null {
  if (view.startedAt === null) return null
  const end = isRunning(view) ? now : (view.finishedAt ?? null)
  if (end === null) return null
  return Math.max(0, end - view.startedAt)
}

/** A clock: 0:07, 12:03, 1:02:03. */
export function formatClock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000))
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = String(total % 60).padStart(2, '0')
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`
}
