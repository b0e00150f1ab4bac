import { useEffect } from 'react'
import { create } from 'zustand'
import type { StepwiseEvent } from '../../../shared/protocol'
import type { SessionView } from '../../../shared/reducer'
import { useApp } from '../state/store'
import { Scrubber } from './scrub'

export const SPEEDS = [1, 2, 5, 10, 50] as const

/**
 * Replay of the open session: the stored events through the shared reducer, up
 * to any step, stepped by hand or played at a chosen speed with the real pauses.
 * A store of its own, so the parts that only show the replay re-render with it
 * and the rest of the app does not re-render on every live event.
 */
interface ReplayState {
  /** The session being replayed; replay ends when another opens. */
  sessionId: string | null
  /** Events shown: the view is the session after its first `count` events. */
  count: number
  playing: boolean
  speed: number
}

const useReplayState = create<ReplayState>(() => ({ sessionId: null, count: 0, playing: false, speed: 5 }))

const scrubbers = new WeakMap<readonly StepwiseEvent[], Scrubber>()
function scrubberFor(events: readonly StepwiseEvent[]): Scrubber {
  let s = scrubbers.get(events)
  if (!s) scrubbers.set(events, (s = new Scrubber(events)))
  return s
}

const total = (): number => useApp.getState().events.length

export function useReplayActive(): boolean {
  const sessionId = useApp((s) => s.sessionId)
  const replayOf = useReplayState((s) => s.sessionId)
  return replayOf !== null && replayOf === sessionId
}

/** What the timeline shows: the live session, or the replayed one as of its scrubbed step. */
export function useDisplayedView(): SessionView {
  const active = useReplayActive()
  const live = useApp((s) => s.view)
  const events = useApp((s) => s.events)
  const count = useReplayState((s) => s.count)
  return active ? scrubberFor(events).viewAt(count) : live
}

/** The step the replay stands on, or undefined when not replaying (null: before the first). */
export function useReplaySeq(): number | null | undefined {
  const active = useReplayActive()
  const events = useApp((s) => s.events)
  const count = useReplayState((s) => s.count)
  return active ? scrubberFor(events).seqAt(count) : undefined
}

export function useReplayPosition(): { count: number; total: number; playing: boolean; speed: number } {
  const count = useReplayState((s) => s.count)
  const playing = useReplayState((s) => s.playing)
  const speed = useReplayState((s) => s.speed)
  const length = useApp((s) => s.events.length)
  return { count, total: length, playing: playing && count < length, speed }
}

/** Advances a playing replay with the session's real pauses (mounted once, by the bar). */
export function useReplayPlayer(): void {
  const { count, playing, speed } = useReplayPosition()
  const events = useApp((s) => s.events)
  useEffect(() => {
    if (!playing) return
    const timer = setTimeout(() => seek(count + 1), scrubberFor(events).delayBefore(count, speed))
    return () => clearTimeout(timer)
  }, [playing, count, speed, events])
}

export function startReplay(): void {
  useReplayState.setState({ sessionId: useApp.getState().sessionId, count: total(), playing: false })
}

export function exitReplay(): void {
  useReplayState.setState({ sessionId: null, playing: false })
}

export function seek(n: number): void {
  useReplayState.setState({ count: Math.max(1, Math.min(n, total())) })
}

export function step(delta: number): void {
  useReplayState.setState({ playing: false })
  seek(useReplayState.getState().count + delta)
}

export function togglePlay(): void {
  const { playing, count } = useReplayState.getState()
  if (!playing && count >= total()) seek(1)
  useReplayState.setState({ playing: !playing })
}

export function setSpeed(speed: number): void {
  useReplayState.setState({ speed })
}
