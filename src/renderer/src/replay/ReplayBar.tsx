import { useEffect } from 'react'
import type React from 'react'
import { SPEEDS, type ReplayControls } from './useReplay'
import './replay.css'

function inField(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null
  return Boolean(el?.closest('input, textarea, select, [contenteditable="true"], .monaco-editor'))
}

/** The replay scrubber: step back and forward (← →), play at a chosen speed, or drag to any step. */
export function ReplayBar({ controls }: { controls: ReplayControls }): React.JSX.Element | null {
  const { active, count, total, seq, playing, speed } = controls

  useEffect(() => {
    if (!active) return
    const onKey = (e: KeyboardEvent): void => {
      if (inField(e.target) || e.ctrlKey || e.metaKey || e.altKey) return
      if (e.key === 'ArrowLeft') controls.step(-1)
      else if (e.key === 'ArrowRight') controls.step(1)
      else if (e.key === ' ') controls.togglePlay()
      else if (e.key === 'Escape') controls.exit()
      else return
      e.preventDefault()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [active, controls])

  if (total === 0) return null
  if (!active) {
    return (
      <button type="button" className="replay-start" data-testid="replay-start" onClick={controls.start}>
        Replay
      </button>
    )
  }
  return (
    <div className="replay-bar" role="toolbar" aria-label="Replay" data-testid="replay-bar">
      <button
        type="button"
        aria-label="Step back (←)"
        onClick={() => controls.step(-1)}
        disabled={count <= 1}
      >
        ◀
      </button>
      <button
        type="button"
        aria-label={playing ? 'Pause (Space)' : 'Play (Space)'}
        data-testid="replay-play"
        onClick={controls.togglePlay}
      >
        {playing ? '❚❚' : '▶'}
      </button>
      <button
        type="button"
        aria-label="Step forward (→)"
        onClick={() => controls.step(1)}
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
        aria-valuetext={`Event ${count} of ${total}${seq === null ? '' : `, step ${seq}`}`}
        data-testid="replay-scrubber"
        onChange={(e) => controls.seek(Number(e.target.value))}
      />
      <span className="replay-pos" aria-hidden="true">
        step {seq ?? '–'} · {count}/{total}
      </span>
      <select
        aria-label="Replay speed"
        value={speed}
        onChange={(e) => controls.setSpeed(Number(e.target.value))}
      >
        {SPEEDS.map((s) => (
          <option key={s} value={s}>
            {s}×
          </option>
        ))}
      </select>
      <button type="button" onClick={controls.exit} aria-label="Exit replay (Esc)">
        Done
      </button>
    </div>
  )
}
