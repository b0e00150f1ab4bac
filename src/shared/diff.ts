import { diffArrays } from 'diff'

/*
 * Unified diffs for the approval view, the review tools and the model.
 * Shared with the renderer, so it imports nothing from Node.
 *
 * Lines are compared as whole strings with jsdiff's `diffArrays` (Myers, linear
 * memory): on a 20,000-line file it is several times faster than `createTwoFilesPatch`,
 * which re-joins and re-splits every change. The hunks are built here.
 */

export interface UnifiedDiffOptions {
  /** Unchanged lines around each change (default 3, as git). */
  context?: number
}

export interface DiffStat {
  added: number
  removed: number
}

/**
 * Beyond this many edits the exact diff is not worth its cost (quadratic in the
 * edit count): the changed middle is shown as removed-then-added, which is still a
 * correct patch.
 */
const MAX_EDIT_LENGTH = 2500

export type Op = { kind: ' ' | '-' | '+'; lines: string[] }

/** Lines with their `\n` kept, so "no newline at end of file" is a difference, as in git. */
function tokenize(text: string | null): string[] {
  const out: string[] = []
  if (!text) return out
  let start = 0
  for (;;) {
    const end = text.indexOf('\n', start)
    if (end < 0) {
      if (start < text.length) out.push(text.slice(start))
      return out
    }
    out.push(text.slice(start, end + 1))
    start = end + 1
  }
}

function diffOps(before: string | null, after: string | null): Op[] {
  return diffLineArrays(tokenize(before), tokenize(after))
}

/**
 * The edit script between two lists of lines (each with its terminator, however
 * the caller split them): runs of kept (' '), removed ('-') and added ('+') lines.
 * Shared by the unified diff and the approval panel's hunks.
 */
export function diffLineArrays(a: readonly string[], b: readonly string[]): Op[] {
  // Common head and tail are cheap to peel off and keep the Myers search small.
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++
  const midA = a.slice(head, a.length - tail)
  const midB = b.slice(head, b.length - tail)

  const ops: Op[] = []
  if (head > 0) ops.push({ kind: ' ', lines: a.slice(0, head) })
  if (midA.length > 0 || midB.length > 0) {
    const changes =
      midA.length === 0 || midB.length === 0
        ? undefined
        : diffArrays(midA, midB, { maxEditLength: MAX_EDIT_LENGTH })
    if (changes) {
      for (const c of changes) ops.push({ kind: c.added ? '+' : c.removed ? '-' : ' ', lines: c.value })
    } else {
      if (midA.length > 0) ops.push({ kind: '-', lines: midA })
      if (midB.length > 0) ops.push({ kind: '+', lines: midB })
    }
  }
  if (tail > 0) ops.push({ kind: ' ', lines: a.slice(a.length - tail) })
  return ops
}

export function diffStat(before: string | null, after: string | null): DiffStat {
  let added = 0
  let removed = 0
  for (const op of diffOps(before, after)) {
    if (op.kind === '+') added += op.lines.length
    else if (op.kind === '-') removed += op.lines.length
  }
  return { added, removed }
}

/**
 * A git-style unified diff (`--- a/path`, `+++ b/path`, `/dev/null` for a created
 * or deleted file). Empty string when nothing changed.
 */
export function unifiedDiff(
  path: string,
  before: string | null,
  after: string | null,
  opts: UnifiedDiffOptions = {},
): string {
  const context = opts.context ?? 3
  const ops = diffOps(before, after)
  if (!ops.some((op) => op.kind !== ' ')) return ''

  const out: string[] = [
    before === null ? '--- /dev/null\n' : `--- a/${path}\n`,
    after === null ? '+++ /dev/null\n' : `+++ b/${path}\n`,
  ]
  let oldLine = 0
  let newLine = 0
  let hunk: {
    oldStart: number
    newStart: number
    oldCount: number
    newCount: number
    body: string[]
  } | null = null

  const emit = (prefix: string, line: string) => {
    hunk!.body.push(prefix, line)
    if (!line.endsWith('\n')) hunk!.body.push('\n\\ No newline at end of file\n')
  }
  const close = () => {
    if (!hunk) return
    out.push(`@@ -${range(hunk.oldStart, hunk.oldCount)} +${range(hunk.newStart, hunk.newCount)} @@\n`)
    // One push per piece: a hunk of a million lines spread into one call overflows the stack.
    for (const piece of hunk.body) out.push(piece)
    hunk = null
  }

  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]
    if (op.kind === ' ') {
      const n = op.lines.length
      if (hunk) {
        const isLast = i === ops.length - 1
        // Context between two changes closer than 2×context joins them into one hunk.
        const keep = !isLast && n <= 2 * context ? n : Math.min(n, context)
        for (let k = 0; k < keep; k++) emit(' ', op.lines[k])
        hunk.oldCount += keep
        hunk.newCount += keep
        if (keep < n || isLast) close()
      }
      oldLine += n
      newLine += n
      continue
    }
    if (!hunk) {
      const prev = i > 0 && ops[i - 1].kind === ' ' ? ops[i - 1].lines : []
      const lead = Math.min(prev.length, context)
      hunk = { oldStart: oldLine - lead, newStart: newLine - lead, oldCount: lead, newCount: lead, body: [] }
      for (let k = prev.length - lead; k < prev.length; k++) emit(' ', prev[k])
    }
    for (const line of op.lines) emit(op.kind, line)
    if (op.kind === '-') {
      hunk.oldCount += op.lines.length
      oldLine += op.lines.length
    } else {
      hunk.newCount += op.lines.length
      newLine += op.lines.length
    }
  }
  close()
  return out.join('')
}

/** `start,count` as in GNU diff: 1-based start; for an empty range, the line before it. */
function range(start0: number, count: number): string {
  if (count === 0) return `${start0},0`
  if (count === 1) return `${start0 + 1}`
  return `${start0 + 1},${count}`
}
