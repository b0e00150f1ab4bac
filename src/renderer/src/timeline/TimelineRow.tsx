import { memo } from 'react'
import type React from 'react'
import type { TimelineStep } from '../../../shared/reducer'
import { describeStep, stepStatus, type RowStatus } from './describe'
import { Markdown } from './Markdown'

export interface TimelineRowProps {
  step: TimelineStep
  index: number
  selected: boolean
  /** The one row reachable with Tab (roving tabindex). */
  tabbable: boolean
  /** The virtualizer's measureElement: a stable ref callback. */
  measure: (el: HTMLDivElement | null) => void
}

const STATUS_ICONS: Record<RowStatus, { glyph: string; label: string }> = {
  running: { glyph: '', label: 'running' },
  streaming: { glyph: '', label: 'streaming' },
  interrupted: { glyph: '⏸', label: 'interrupted' },
  waiting: { glyph: '◷', label: 'waiting for approval' },
  ok: { glyph: '✓', label: 'done' },
  error: { glyph: '✗', label: 'failed' },
  rejected: { glyph: '⊘', label: 'rejected' },
}

const KIND_ICONS: Partial<Record<TimelineStep['kind'], { glyph: string; label: string }>> = {
  user: { glyph: '❯', label: 'you' },
  model: { glyph: '✦', label: 'model' },
  checkpoint: { glyph: '⚑', label: 'checkpoint' },
  compaction: { glyph: '⇊', label: 'compaction' },
  error: { glyph: '!', label: 'error' },
  'unparsed-call': { glyph: '⚠', label: 'tool call not understood' },
  finding: { glyph: '◆', label: 'finding' },
  restore: { glyph: '↺', label: 'restore' },
  fork: { glyph: '⎇', label: 'fork' },
  switch: { glyph: '⇄', label: 'model switch' },
  finish: { glyph: '■', label: 'end of turn' },
}

function icon(step: TimelineStep, status: RowStatus): { glyph: string; label: string } {
  if (step.kind === 'tool') return STATUS_ICONS[status]
  if (step.kind === 'verify') return step.passed ? STATUS_ICONS.ok : STATUS_ICONS.error
  return KIND_ICONS[step.kind] ?? STATUS_ICONS.ok
}

function rowClass(step: TimelineStep, selected: boolean): string {
  let cls = `tl-row tl-${step.kind}`
  if (step.kind === 'verify' && !step.passed) cls += ' tl-failed'
  if (step.kind === 'finding') cls += ` tl-sev-${step.finding.severity}`
  if (step.kind === 'finish') cls += ` tl-end-${step.reason}`
  return selected ? `${cls} is-selected` : cls
}

/**
 * One step of the timeline. Kept to a handful of elements; clicks and keys are handled
 * once by the list (event delegation), so a row needs no callbacks of its own.
 */
function TimelineRowImpl({ step, index, selected, tabbable, measure }: TimelineRowProps): React.JSX.Element {
  const status = stepStatus(step)
  const text = describeStep(step)
  const { glyph, label } = icon(step, status)
  // Status colours for the icons that show a status; the others keep their kind's colour.
  const tone =
    step.kind === 'tool'
      ? ` tl-st-${status}`
      : step.kind === 'verify'
        ? ` tl-st-${step.passed ? 'ok' : 'error'}`
        : ''
  return (
    <div
      ref={measure}
      role="listitem"
      className={text.inline ? `${rowClass(step, selected)} tl-inline` : rowClass(step, selected)}
      tabIndex={tabbable ? 0 : -1}
      aria-current={selected ? 'true' : undefined}
      data-index={index}
      data-testid="timeline-step"
      data-kind={step.kind}
      data-status={status}
      data-seq={step.seq}
    >
      <span
        className={`tl-icon${tone}${status === 'running' ? ' tl-spin' : ''}`}
        role="img"
        aria-label={label}
      >
        {glyph}
      </span>
      <div className="tl-body">
        <div className="tl-title">
          {text.title}
          {step.kind === 'tool' && step.checkpoint && (
            // The checkpoint taken after this call, folded into its row (fold.ts).
            <span
              className="tl-cp"
              data-kind="checkpoint"
              data-testid="timeline-checkpoint"
              data-seq={step.checkpoint.seq}
              role="img"
              aria-label={`checkpoint #${step.checkpoint.snapshotId}`}
              title={`Checkpoint #${step.checkpoint.snapshotId}: undo and rewind return here`}
            >
              ⚑
            </span>
          )}
          {status === 'streaming' && <span className="tl-pulse" aria-label="streaming" role="img" />}
        </div>
        {text.meta && <div className="tl-meta">{text.meta}</div>}
        {text.markdown ? (
          // Clamped by height unless it is the answer; the virtualizer measures the row as rendered.
          <Markdown
            className={text.whole ? 'tl-md tl-answer' : 'tl-md'}
            text={text.markdown}
            highlight={false}
          />
        ) : (
          text.preview && <div className="tl-preview">{text.preview}</div>
        )}
      </div>
    </div>
  )
}

/** Steps are immutable objects from the reducer: identity says whether a row changed. */
function sameRow(a: TimelineRowProps, b: TimelineRowProps): boolean {
  return (
    a.step === b.step &&
    a.index === b.index &&
    a.selected === b.selected &&
    a.tabbable === b.tabbable &&
    a.measure === b.measure
  )
}

export const TimelineRow = memo(TimelineRowImpl, sameRow)
