import { diffLineArrays } from '../../../shared/diff'
import { pushAll } from '../../../shared/arrays'

/*
 * Hunk math for the approval panel: split a proposed change into hunks the user accepts or rejects one
 * by one, and rebuild the file from the accepted ones. Pure, so it runs (and is tested) without a DOM.
 *
 * Lines are compared as whole strings with their terminator kept ("\n", "\r\n" or a lone "\r", split
 * as Monaco splits them, so line numbers match the diff editor). Keeping the terminator makes a missing
 * final newline a difference, and lets `applyHunks` rebuild the text byte for byte.
 */

export interface HunkLine {
  kind: '-' | '+'
  /** The line without its terminator. */
  text: string
  /** "\n", "\r\n", "\r", or "" for a last line without a newline. */
  eol: string
}

export interface Hunk {
  /** 0-based position among the hunks of the change. */
  index: number
  /** 1-based first line in the old text; for an empty range, the line the change sits before. */
  oldStart: number
  oldLines: number
  /** 1-based first line in the new text; for an empty range, the line the change sits before. */
  newStart: number
  newLines: number
  /** Removed and added lines, in the order jsdiff reports them. */
  lines: HunkLine[]
}

export interface SelectionSummary {
  total: number
  accepted: number
  rejected: number
  allAccepted: boolean
  noneAccepted: boolean
}

type Segment = { kind: 'same'; lines: string[] } | { kind: 'change'; removed: string[]; added: string[] }

/** Lines with their terminator kept; "" and null have no lines. */
export function splitLines(text: string | null): string[] {
  const out: string[] = []
  if (!text) return out
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 10 /* \n */) {
      out.push(text.slice(start, i + 1))
      start = i + 1
    } else if (c === 13 /* \r */) {
      if (text.charCodeAt(i + 1) === 10) i++
      out.push(text.slice(start, i + 1))
      start = i + 1
    }
  }
  if (start < text.length) out.push(text.slice(start))
  return out
}

/** Equal runs and change runs, alternating; a change run holds every removal and addition between two equal runs. */
function segments(before: string | null, after: string | null): Segment[] {
  const out: Segment[] = []
  for (const op of diffLineArrays(splitLines(before), splitLines(after))) {
    const last = out[out.length - 1]
    if (op.kind === ' ') out.push({ kind: 'same', lines: op.lines })
    else if (last?.kind === 'change') pushAll(op.kind === '-' ? last.removed : last.added, op.lines)
    else
      out.push({
        kind: 'change',
        removed: op.kind === '-' ? [...op.lines] : [],
        added: op.kind === '+' ? [...op.lines] : [],
      })
  }
  return out
}

function toHunkLine(kind: '-' | '+', line: string): HunkLine {
  const eol = line.endsWith('\r\n') ? '\r\n' : line.endsWith('\n') ? '\n' : line.endsWith('\r') ? '\r' : ''
  return { kind, text: line.slice(0, line.length - eol.length), eol }
}

/** The hunks of the change from `before` to `after` (null: the file does not exist on that side). */
export function computeHunks(before: string | null, after: string | null): Hunk[] {
  const hunks: Hunk[] = []
  let oldLine = 1
  let newLine = 1
  for (const seg of segments(before, after)) {
    if (seg.kind === 'same') {
      oldLine += seg.lines.length
      newLine += seg.lines.length
      continue
    }
    // jsdiff reports removals before additions within a run; keep them grouped that way for display.
    hunks.push({
      index: hunks.length,
      oldStart: oldLine,
      oldLines: seg.removed.length,
      newStart: newLine,
      newLines: seg.added.length,
      lines: [...seg.removed.map((l) => toHunkLine('-', l)), ...seg.added.map((l) => toHunkLine('+', l))],
    })
    oldLine += seg.removed.length
    newLine += seg.added.length
  }
  return hunks
}

/**
 * The file text with only the accepted hunks applied: all accepted gives exactly `after`, none gives
 * exactly `before` (null reads as ""). Indexes are those of `computeHunks(before, after)`.
 */
export function applyHunks(
  before: string | null,
  after: string | null,
  acceptedIndexes: ReadonlySet<number>,
): string {
  const out: string[] = []
  let index = 0
  for (const seg of segments(before, after)) {
    if (seg.kind === 'same') pushAll(out, seg.lines)
    else pushAll(out, acceptedIndexes.has(index++) ? seg.added : seg.removed)
  }
  return out.join('')
}

export function summarizeSelection(
  hunks: readonly Hunk[],
  acceptedIndexes: ReadonlySet<number>,
): SelectionSummary {
  const accepted = hunks.filter((h) => acceptedIndexes.has(h.index)).length
  const total = hunks.length
  return {
    total,
    accepted,
    rejected: total - accepted,
    allAccepted: accepted === total,
    noneAccepted: total > 0 && accepted === 0,
  }
}

function span(start: number, count: number): string {
  return count === 1 ? `line ${start}` : `lines ${start}–${start + count - 1}`
}

/** Where the hunk is, for labels: "lines 10–14" of the new text, or the removed original lines. */
export function describeHunkRange(h: Hunk): string {
  if (h.newLines > 0) return span(h.newStart, h.newLines)
  return `removes original ${span(h.oldStart, h.oldLines)}`
}

/** The 1-based line of the new text to scroll to for this hunk (a pure removal: the line above it). */
export function revealLineOf(h: Hunk): number {
  return Math.max(1, h.newLines > 0 ? h.newStart : h.newStart - 1)
}
