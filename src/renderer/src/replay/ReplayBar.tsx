import { useEffect } from 'react'
import type React from 'react'
import type { StepKind } from '../../../shared/steps'
import {
  exitReplay,
  goTo,
  jump,
  setSpeed,
  SPEEDS,
  startReplay,
  step,
  togglePlay,
  useCanJump,
  useReplayActive,
  useReplayPlayer,
  useReplayPosition,
} from './useReplay'
import './replay.css'

/** Keys typed in a field, or in a dialog over the replay (Esc closes the dialog, not the replay), are not the bar's. */
function inField(target: EventTarget | null): boolean {
  const el = target instanceof Element ? target : null
  return Boolean(el?.closest('input, textarea, select, [contenteditable="true"], .monaco-editor, dialog'))
}

function outsideBar(target: EventTarget | null): boolean {
  const el = target instanceof Element ? target : null
  return Boolean(el && el !== document.body && !el.closest('.replay-bar'))
}

/** The jumps: a key for the next one, the same key with Shift for the previous one. */
const JUMPS: ReadonlyArray<{ kind: Exclude<StepKind, 'other'>; key: string; label: string }> = [
  { kind: 'message', key: 'm', label: 'message' },
  { kind: 'tool', key: 't', label: 'tool call' },
  { kind: 'change', key: 'c', label: 'change' },
]

const KIND_NAMES: Record<StepKind, string> = {
  message: 'message',
  tool: 'tool call',
  change: 'change',
  other: 'event',
}

function JumpButtons({
  kind,
  keyName,
  label,
}: {
  kind: StepKind
  keyName: string
  label: string
}): React.JSX.Element {
  const back = useCanJump(kind, -1)
  const on = useCanJump(kind, 1)
  return (
    <span className="replay-jump" role="group" aria-label={`Jump by ${label}`}>
      <button
        type="button"
        className="ui-button small"
        aria-label={`Previous ${label} (Shift+${keyName.toUpperCase()})`}
        title={`Previous ${label} (Shift+${keyName.toUpperCase()})`}
        data-testid={`replay-prev-${kind}`}
        disabled={!back}
        onClick={() => jump(kind, -1)}
      >
        ‹
      </button>
      <span className="replay-jump-label" aria-hidden="true">
        {label}
      </span>
      <button
        type="button"
        className="ui-button small"
        aria-label={`Next ${label} (${keyName.toUpperCase()})`}
        title={`Next ${label} (${keyName.toUpperCase()})`}
        data-testid={`replay-next-${kind}`}
        disabled={!on}
        onClick={() => jump(kind, 1)}
      >
        ›
      </button>
    </span>
  )
}

/** The bar's keys while replaying: ← → step, M T C jump (Shift: back), Home End, Space plays, Esc exits. */
function useReplayKeys(active: boolean, steps: number): void {
  useEffect(() => {
    if (!active) return
    const onKey = (e: KeyboardEvent): void => {
      if (inField(e.target) || e.ctrlKey || e.metaKey || e.altKey) return
      const jumpTo = JUMPS.find((j) => j.key === e.key.toLowerCase())
      if (jumpTo) jump(jumpTo.kind, e.shiftKey ? -1 : 1)
      else if (e.key === 'ArrowLeft') step(-1)
      else if (e.key === 'ArrowRight') step(1)
      // Home / End move through the timeline when it has focus: here only from the page or the bar.
      else if ((e.key === 'Home' || e.key === 'End') && !outsideBar(e.target))
        goTo(e.key === 'Home' ? 0 : steps)
      else if (e.key === ' ') togglePlay()
      else if (e.key === 'Escape') exitReplay()
      else return
      e.preventDefault()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [active, steps])
}

/** Step back, play or pause, step forward. */
function StepButtons({
  at,
  steps,
  playing,
}: {
  at: number
  steps: number
  playing: boolean
}): React.JSX.Element {
  return (
    <>
      <button
        type="button"
        className="ui-button small"
        aria-label="Step back (←)"
        title="Step back (←)"
        data-testid="replay-back"
        onClick={() => step(-1)}
        disabled={at <= 0}
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
        title="Step forward (→)"
        data-testid="replay-forward"
        onClick={() => step(1)}
        disabled={at >= steps}
      >
        ▶▶
      </button>
    </>
  )
}

/**
 * The replay bar: step back and forward (← →) through what happened — messages, tool calls,
 * changes — jump to the next or previous one of a kind (M, T, C; with Shift: back), play at a
 * chosen speed (Space), or drag to any step.
 */
export function ReplayBar(): React.JSX.Element | null {
  const active = useReplayActive()
  const { step: at, steps, kind, playing, speed, total } = useReplayPosition()
  useReplayPlayer()

  useReplayKeys(active, steps)

  if (total === 0) return null
  if (!active) {
    return (
      <button type="button" className="ui-button small" data-testid="replay-start" onClick={startReplay}>
        Replay
      </button>
    )
  }
  const where = at === 0 ? 'the start' : `step ${at} of ${steps} · ${KIND_NAMES[kind ?? 'other']}`
  return (
    <div className="replay-bar" role="toolbar" aria-label="Replay" data-testid="replay-bar">
      <StepButtons at={at} steps={steps} playing={playing} />
      <input
        type="range"
        min={0}
        max={steps}
        value={at}
        aria-label="Replay position"
        aria-valuetext={
          at === 0 ? `The start, of ${steps} steps` : `Step ${at} of ${steps}: ${KIND_NAMES[kind ?? 'other']}`
        }
        // The timeline's overview scrubs too: a click on a bar, or a drag along its time ruler.
        title="Or click a bar in the overview, or drag along its time ruler"
        aria-describedby="replay-overview-hint"
        data-testid="replay-scrubber"
        onChange={(e) => goTo(Number(e.target.value))}
      />
      <span className="replay-pos" data-testid="replay-position">
        {where}
      </span>
      <span id="replay-overview-hint" hidden>
        The overview above the steps is a scrubber too: click a bar, or drag along its time ruler.
      </span>
      {JUMPS.map((j) => (
        <JumpButtons key={j.kind} kind={j.kind} keyName={j.key} label={j.label} />
      ))}
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
