import { useCallback, useEffect, useMemo, useState } from 'react'
import type { SessionView } from '../../../shared/reducer'
import { useApp } from '../state/store'
import { Scrubber } from './scrub'

export const SPEEDS = [1, 2, 5, 10, 50] as const

export interface ReplayControls {
  active: boolean
  /** Events shown: the view is the session after its first `count` events. */
  count: number
  total: number
  /** The seq of the last event shown (the step the replay stands on). */
  seq: number | null
  view: SessionView
  playing: boolean
  speed: number
  start(): void
  exit(): void
  seek(count: number): void
  step(delta: number): void
  togglePlay(): void
  setSpeed(speed: number): void
}

/**
 * Replay of the open session: the stored events through the shared reducer, up
 * to any step, stepped by hand or played at a chosen speed with the real pauses.
 */
export function useReplay(): ReplayControls {
  const events = useApp((s) => s.events)
  const sessionId = useApp((s) => s.sessionId)
  const live = useApp((s) => s.view)
  const scrubber = useMemo(() => new Scrubber(events), [events])
  // Replay belongs to one session: opening another leaves it.
  const [replayOf, setReplayOf] = useState<string | null>(null)
  const active = replayOf !== null && replayOf === sessionId
  const setActive = (on: boolean): void => setReplayOf(on ? sessionId : null)
  const [count, setCount] = useState(0)
  const [playRequested, setPlaying] = useState(false)
  const [speed, setSpeed] = useState<number>(5)
  const playing = active && playRequested && count < scrubber.length

  useEffect(() => {
    if (!playing) return
    const timer = setTimeout(() => setCount((c) => c + 1), scrubber.delayBefore(count, speed))
    return () => clearTimeout(timer)
  }, [playing, count, speed, scrubber])

  const seek = useCallback((n: number) => setCount(Math.max(1, Math.min(n, scrubber.length))), [scrubber])
  const view = useMemo(() => (active ? scrubber.viewAt(count) : live), [active, count, scrubber, live])

  return {
    active,
    count,
    total: scrubber.length,
    seq: active ? scrubber.seqAt(count) : null,
    view,
    playing,
    speed,
    start: () => {
      setActive(true)
      setCount(scrubber.length)
    },
    exit: () => {
      setActive(false)
      setPlaying(false)
    },
    seek,
    step: (delta) => {
      setPlaying(false)
      seek(count + delta)
    },
    togglePlay: () => {
      if (!playing && count >= scrubber.length) setCount(1)
      setPlaying((p) => !p)
    },
    setSpeed,
  }
}
