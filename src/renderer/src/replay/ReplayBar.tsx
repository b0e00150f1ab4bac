import { useEffect } from 'react'
import type React from 'react'
import {
  exitReplay,
  seek,
  setSpeed,
  SPEEDS,
  startReplay,
  step,
  togglePlay,
  useReplayActive,
  useReplayPlayer,
  useReplayPosition,
  useReplaySeq,
} from './useReplay'
import './replay.css'

function inField(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null
  return Boolean(el?.closest('input, textarea, select, [contenteditable="true"], .monaco-editor'))
}

/** The replay scrubber: step back and forward (← →), play at a chosen speed, or drag to any step. */
export function ReplayBar(): React.JSX.Element | null {
  const active = useReplayActive()
  const { count, total, playing, speed } = useReplayPosition()
  const seq = useReplaySeq()
  useReplayPlayer()

  useEffect(() => {
    if (!active) return
    const onKey = (e: KeyboardEvent): void => {
      if (inField(e.target) || e.ctrlKey || e.metaKey || e.altKey) return
      if (e.key === 'ArrowLeft') step(-1)
      else if (e.key === 'ArrowRight') step(1)
      else if (e.key === ' ') togglePlay()
      else if (e.key === 'Escape') exitReplay()
      else return
      e.preventDefault()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [active])

  if (total === 0) return null
  if (!active) {
    return (
      <button type="button" className="ui-button small" data-testid="replay-start" onClick={startReplay}>
        Replay
      </button>
    )
  }
  return (
    <div className="replay-bar" role="toolbar" aria-label="Replay" data-testid="replay-bar">
      <button
        type="button"
        className="ui-button small"
        aria-label="Step back (←)"
        onClick={() => step(-1)}
        disabled={count <= 1}
      >
        ◀
      </button>
      <button
        type="button"
        className="ui-button small"
        aria-label={playing ? 'Pause (Space)' : 'Play (Space)'}
        data-testid="replay-play"
        onClick={togglePlay}
      >
        {playing ? '❚❚' : '▶'}
      </button>
      <button
        type="button"
        className="ui-button small"
        aria-label="Step forward (→)"
        onClick={() => step(1)}
        disabled={count >= total}
      >
        ▶▶
      </button>
      <input
        type="range"
        min={1}
        max={total}
        value={count}
        aria-label="Replay position"
        aria-valuetext={`Event ${count} of ${total}${seq == null ? '' : `, step ${seq}`}`}
        // The timeline's overview scrubs too: a click on a bar, or a drag along its time ruler.
        title="Or click a bar in the overview, or drag along its time ruler"
        aria-describedby="replay-overview-hint"
        data-testid="replay-scrubber"
        onChange={(e) => seek(Number(e.target.value))}
      />
      <span className="replay-pos" aria-hidden="true">
        step {seq ?? '–'} · {count}/{total}
      </span>
      <span id="replay-overview-hint" hidden>
        The overview above the steps is a scrubber too: click a bar, or drag along its time ruler.
      </span>
      <select aria-label="Replay speed" value={speed} onChange={(e) => setSpeed(Number(e.target.value))}>
        {SPEEDS.map((s) => (
          <option key={s} value={s}>
            {s}×
          </option>
        ))}
      </select>
      <button type="button" className="ui-button small" onClick={exitReplay} aria-label="Exit replay (Esc)">
        Done
      </button>
    </div>
  )
}
