import type React from 'react'
import { useEffect, useState } from 'react'
import { useApp } from '../state/store'
import { elapsedMs, formatClock, isRunning } from './derive'

/** The session's time, ticking each second while a turn runs. */
export function SessionClock(): React.JSX.Element | null {
  const status = useApp((s) => s.view.status)
  const startedAt = useApp((s) => s.view.startedAt)
  const finishedAt = useApp((s) => s.view.finishedAt)
  const running = isRunning({ status })
  const [now, setNow] = useState(() => Date.now())

  useEffect(() => {
    if (!running) return
    const tick = (): void => setNow(Date.now())
    const first = setTimeout(tick, 0) // `now` may be from the last turn: catch up at once
    const timer = setInterval(tick, 1000)
    return () => {
      clearTimeout(first)
      clearInterval(timer)
    }
  }, [running])

  const ms = elapsedMs({ status, startedAt, finishedAt }, now)
  if (ms === null) return null
  const clock = formatClock(ms)
  return (
    <span
      className="statusbar-item statusbar-clock"
      aria-live="off"
      title="Session time"
      aria-label={`Session time ${clock}`}
    >
      {clock}
    </span>
  )
}
