import type React from 'react'
import { describeHunkRange, summarizeSelection, type Hunk } from './hunks'

interface HunkListProps {
  hunks: readonly Hunk[]
  accepted: ReadonlySet<number>
  /** The hunk last shown in the editor, highlighted in the list. */
  focused: number | null
  /** While the user edits the text, hunk choices are locked. */
  locked: boolean
  onToggle(index: number, accept: boolean): void
  onSetAll(accept: boolean): void
  onShow(hunk: Hunk): void
}

const PREVIEW_CHARS = 80

function preview(h: Hunk): string {
  const line = h.lines.find((l) => l.kind === '+' && l.text.trim()) ?? h.lines.find((l) => l.text.trim())
  if (!line) return h.newLines > 0 ? '(blank lines)' : '(removes blank lines)'
  const text = line.text.trim()
  return `${line.kind} ${text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text}`
}

/** The hunks of a file change, each with Accept / Reject; clicking a row shows it in the diff. */
export function HunkList(props: HunkListProps): React.JSX.Element {
  const { hunks, accepted, focused, locked } = props
  const summary = summarizeSelection(hunks, accepted)

  return (
    <aside className="approval-hunks" aria-label="Hunks">
      <div className="approval-hunks-head">
        <span data-testid="hunk-summary">
          {summary.accepted} of {summary.total} {summary.total === 1 ? 'hunk' : 'hunks'} accepted
        </span>
        {hunks.length > 1 && (
          <span className="approval-hunks-bulk">
            <button
              type="button"
              className="ui-link"
              disabled={locked || summary.allAccepted}
              onClick={() => props.onSetAll(true)}
            >
              Accept all
            </button>
            <button
              type="button"
              className="ui-link"
              disabled={locked || summary.noneAccepted}
              onClick={() => props.onSetAll(false)}
            >
              Reject all
            </button>
          </span>
        )}
      </div>
      {locked && (
        <p className="approval-hint" role="status">
          Hunk choices are locked while you edit. Discard edits to change them.
        </p>
      )}
      <ol className="approval-hunk-list">
        {hunks.map((h) => (
          <HunkRow
            key={h.index}
            hunk={h}
            accepted={accepted.has(h.index)}
            focused={focused === h.index}
            locked={locked}
            onToggle={props.onToggle}
            onShow={props.onShow}
          />
        ))}
      </ol>
    </aside>
  )
}

interface HunkRowProps extends Pick<HunkListProps, 'locked' | 'onToggle' | 'onShow'> {
  hunk: Hunk
  accepted: boolean
  focused: boolean
}

/** One hunk: where it is, what it adds and removes, its first line, and its Accept / Reject. */
function HunkRow({ hunk: h, accepted, focused, locked, onToggle, onShow }: HunkRowProps): React.JSX.Element {
  const n = h.index + 1
  const range = describeHunkRange(h)
  const added = h.lines.filter((l) => l.kind === '+').length
  const removed = h.lines.length - added
  return (
    <li
      className={`approval-hunk${accepted ? '' : ' approval-hunk--rejected'}${focused ? ' approval-hunk--focused' : ''}`}
      data-testid="hunk"
      data-state={accepted ? 'accepted' : 'rejected'}
      onClick={() => onShow(h)}
    >
      <button type="button" className="approval-hunk-show" title="Show it in the diff">
        <span className="approval-hunk-title">
          Hunk {n} · {range}
          <span className="approval-stat approval-stat--add"> +{added}</span>
          <span className="approval-stat approval-stat--del"> −{removed}</span>
        </span>
        <code className="approval-hunk-preview">{preview(h)}</code>
      </button>
      <span className="approval-hunk-choice">
        <button
          type="button"
          className="approval-toggle approval-toggle--accept"
          data-testid="hunk-accept"
          aria-label={`Accept hunk ${n} (${range})`}
          aria-pressed={accepted}
          disabled={locked}
          onClick={() => onToggle(h.index, true)}
        >
          Accept
        </button>
        <button
          type="button"
          className="approval-toggle approval-toggle--reject"
          data-testid="hunk-reject"
          aria-label={`Reject hunk ${n} (${range})`}
          aria-pressed={!accepted}
          disabled={locked}
          onClick={() => onToggle(h.index, false)}
        >
          Reject
        </button>
      </span>
    </li>
  )
}
