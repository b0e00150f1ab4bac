import { useEffect } from 'react'
import { create } from 'zustand'
import type { StepwiseEvent } from '../../../shared/protocol'
import type { SessionView } from '../../../shared/reducer'
import { nextStepOf, stepNumberAt, stepsOf, type Step, type StepKind } from '../../../shared/steps'
import { useApp } from '../state/store'
import { Scrubber } from './scrub'

export const SPEEDS = [1, 2, 5, 10, 50] as const

/**
 * Replay of the open session by steps (shared/steps.ts): messages, tool calls, changes — the
 * same numbers `/rewind N` and `sessions fork --at N` take. The view at step n is the stored
 * events up to that step's last one through the shared reducer, exactly as live. Played at a
 * chosen speed with the real pauses between steps. A store of its own, so the parts that only
 * show the replay re-render with it and the rest of the app does not on every live event.
 */
interface ReplayState {
  /** The session being replayed; replay ends when another opens. */
  sessionId: string | null
  /** The step the replay stands on: 0 is the session's start, steps.length its end. */
  step: number
  playing: boolean
  speed: number
}

const useReplayState = create<ReplayState>(() => ({ sessionId: null, step: 0, playing: false, speed: 5 }))

interface Replayable {
  scrubber: Scrubber
  steps: Step[]
}
const cache = new WeakMap<readonly StepwiseEvent[], Replayable>()
function replayableOf(events: readonly StepwiseEvent[]): Replayable {
  let r = cache.get(events)
  if (!r) cache.set(events, (r = { scrubber: new Scrubber(events), steps: stepsOf(events) }))
  return r
}
const current = (): Replayable => replayableOf(useApp.getState().events)

/** How many events the state at step n holds (step 0: the session's first event alone). */
function countAt(steps: readonly Step[], n: number, total: number): number {
  if (n <= 0) return Math.min(1, total)
  return steps[Math.min(n, steps.length) - 1]?.count ?? total
}

export function useReplayActive(): boolean {
  const sessionId = useApp((s) => s.sessionId)
  const replayOf = useReplayState((s) => s.sessionId)
  return replayOf !== null && replayOf === sessionId
}

/** What the timeline shows: the live session, or the replayed one as of its step. */
export function useDisplayedView(): SessionView {
  const active = useReplayActive()
  const live = useApp((s) => s.view)
  const events = useApp((s) => s.events)
  const step = useReplayState((s) => s.step)
  if (!active) return live
  const { scrubber, steps } = replayableOf(events)
  return scrubber.viewAt(countAt(steps, step, events.length))
}

/** The seq of the last event the replay shows, or undefined when not replaying (null: nothing yet). */
export function useReplaySeq(): number | null | undefined {
  const active = useReplayActive()
  const events = useApp((s) => s.events)
  const step = useReplayState((s) => s.step)
  if (!active) return undefined
  const { scrubber, steps } = replayableOf(events)
  return scrubber.seqAt(countAt(steps, step, events.length))
}

export interface ReplayPosition {
  /** The step the replay stands on (0: the start). */
  step: number
  /** How many steps the session has. */
  steps: number
  /** What the current step is (undefined at the start). */
  kind: StepKind | undefined
  /** Events the view holds (for the overview's marker). */
  count: number
  total: number
  playing: boolean
  speed: number
}

export function useReplayPosition(): ReplayPosition {
  const step = useReplayState((s) => s.step)
  const playing = useReplayState((s) => s.playing)
  const speed = useReplayState((s) => s.speed)
  const events = useApp((s) => s.events)
  const { steps } = replayableOf(events)
  return {
    step,
    steps: steps.length,
    kind: steps[step - 1]?.kind,
    count: countAt(steps, step, events.length),
    total: events.length,
    playing: playing && step < steps.length,
    speed,
  }
}

/** Advances a playing replay with the session's real pauses between steps, capped (mounted once, by the bar). */
export function useReplayPlayer(): void {
  const { step, playing, speed } = useReplayPosition()
  const events = useApp((s) => s.events)
  useEffect(() => {
    if (!playing) return
    const { steps } = replayableOf(events)
    const prev = step > 0 ? steps[step - 1].ts : events[0]?.ts
    const next = steps[step]?.ts
    const gap = prev === undefined || next === undefined ? 0 : next - prev
    const timer = setTimeout(() => goTo(step + 1), Math.min(1000, Math.max(16, gap)) / speed)
    return () => clearTimeout(timer)
  }, [playing, step, speed, events])
}

export function startReplay(): void {
  useReplayState.setState({
    sessionId: useApp.getState().sessionId,
    step: current().steps.length,
    playing: false,
  })
}

export function exitReplay(): void {
  useReplayState.setState({ sessionId: null, playing: false })
}

/** Stands the replay on step n (clamped to the session). */
export function goTo(n: number): void {
  useReplayState.setState({ step: Math.max(0, Math.min(n, current().steps.length)) })
}

/** Stands the replay on the step that holds the event at position `count` (the overview scrubs by events). */
export function seek(count: number): void {
  const events = useApp.getState().events
  const event = events[Math.max(1, Math.min(count, events.length)) - 1]
  if (!event) return
  goTo(event.type === 'session.started' ? 0 : stepNumberAt(current().steps, event.seq))
}

export function step(delta: number): void {
  useReplayState.setState({ playing: false })
  goTo(useReplayState.getState().step + delta)
}

/** Jumps to the next (1) or previous (-1) step of a kind; false when there is none that way. */
export function jump(kind: StepKind, dir: 1 | -1): boolean {
  const to = nextStepOf(current().steps, useReplayState.getState().step, kind, dir)
  if (to === undefined) return false
  useReplayState.setState({ playing: false })
  goTo(to)
  return true
}

/** Whether a jump that way finds a step of the kind (for the buttons' disabled state). */
export function useCanJump(kind: StepKind, dir: 1 | -1): boolean {
  const step = useReplayState((s) => s.step)
  const events = useApp((s) => s.events)
  return nextStepOf(replayableOf(events).steps, step, kind, dir) !== undefined
}

export function togglePlay(): void {
  const { playing, step } = useReplayState.getState()
  if (!playing && step >= current().steps.length) goTo(0)
  useReplayState.setState({ playing: !playing })
}

export function setSpeed(speed: number): void {
  useReplayState.setState({ speed })
}
