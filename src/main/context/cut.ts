/**
 * Cutting one tool result to a token budget (docs/architecture.md#context): when a result cannot fit
 * the window even after compaction, the model gets the part that fits and an
 * explicit marker saying how to ask for less, instead of a failed session.
 * Results are JSON objects: the biggest field (a file's content, a list of
 * matches, a command's output) is shortened and a `cut_to_fit` field explains.
 */

import { parseJsonObject } from '../../shared/records'

export type Count = (text: string) => number

/** Fields whose end matters more than their middle (a command's errors come last). */
const HEAD_AND_TAIL_FIELDS = new Set(['output', 'stdout', 'stderr', 'log'])

/** What to call next to see less at once, by tool. `args` are the call's parsed arguments. */
export function narrowHint(tool: string, args: Record<string, unknown>, nextLine?: number): string {
  switch (tool) {
    case 'read_file':
    case 'read_file_original': {
      const from = nextLine ?? (typeof args.start_line === 'number' ? args.start_line : 1)
      return `Read the rest in smaller ranges: call ${tool} with start_line=${from} and an end_line (a few dozen lines at a time), or search_in_files for what you need.`
    }
    case 'search_in_files':
      return 'Narrow the search: a more specific query, prefix (one folder), glob (e.g. "*.ts"), or a lower limit_matches.'
    case 'list_files':
      return 'Narrow the listing with prefix (one folder) or glob (e.g. "*.ts"), or a lower limit.'
    case 'run_command':
    case 'run_tests':
    case 'run_build':
    case 'run_lint':
      return 'Run a narrower command, or filter its output (e.g. `… 2>&1 | tail -40` or `| grep -n error`).'
    case 'git_diff':
    case 'git_show':
    case 'diff_file_against_original':
      return 'Ask for one file at a time (pass its path).'
    default:
      return 'Ask for less at once: a narrower path, range or filter.'
  }
}

interface Piece {
  key: string
  /** The field cut to `keep` units (characters of a string, elements of an array). */
  cut(keep: number): unknown
  units: number
  describe(keep: number): string
}

function stringPiece(key: string, value: string): Piece {
  const headAndTail = HEAD_AND_TAIL_FIELDS.has(key)
  return {
    key,
    units: value.length,
    cut(keep) {
      if (headAndTail) {
        const head = value.slice(0, Math.floor(keep / 3))
        const tail = value.slice(value.length - (keep - head.length))
        return `${atLineEnd(head)}\n[… cut …]\n${fromLineStart(tail)}`
      }
      return atLineEnd(value.slice(0, keep))
    },
    describe(keep) {
      const where = headAndTail ? 'its start and end' : 'its start'
      return `"${key}" had ${value.length} characters; ${where} (about ${keep}) are shown`
    },
  }
}

function arrayPiece(key: string, value: unknown[]): Piece {
  return {
    key,
    units: value.length,
    cut: (keep) => value.slice(0, keep),
    describe: (keep) => `"${key}" had ${value.length} entries; the first ${keep} are shown`,
  }
}

/** Keeps whole lines when the cut falls mid-line (and something is left). */
function atLineEnd(text: string): string {
  const nl = text.lastIndexOf('\n')
  return nl > text.length / 2 ? text.slice(0, nl) : text
}

function fromLineStart(text: string): string {
  const nl = text.indexOf('\n')
  return nl >= 0 && nl < text.length / 2 ? text.slice(nl + 1) : text
}

/** The last line number of a numbered read_file view ("12\tcode"). */
function lastNumberedLine(content: unknown): number | undefined {
  if (typeof content !== 'string') return undefined
  const m = /(?:^|\n)(\d+)\t[^\n]*$/.exec(content)
  return m ? Number(m[1]) : undefined
}

/** The room a result must fit in, and how it is measured. */
export interface CutBudget {
  maxTokens: number
  count: Count
  /** `count(output)` when the caller already has it, so a large output is not counted twice. */
  outputTokens?: number
}

/**
 * `output` cut so that `count(result) <= maxTokens`, with a `cut_to_fit` marker; the
 * output itself when it already fits. `tool` and `args` choose the hint.
 */
export function cutToolOutput(
  output: string,
  { maxTokens, count, outputTokens }: CutBudget,
  call: { name: string; args?: Record<string, unknown> },
): string {
  if (output.length <= maxTokens || (outputTokens ?? count(output)) <= maxTokens) return output
  const args = call.args ?? {}
  const obj = parseJsonObject(output) ?? { ok: true, text: output }
  // The biggest fields first: they are what made the result too large.
  const pieces = Object.entries(obj)
    .flatMap(([key, value]): Piece[] =>
      typeof value === 'string' && value.length > 200
        ? [stringPiece(key, value)]
        : Array.isArray(value) && value.length > 1
          ? [arrayPiece(key, value)]
          : [],
    )
    .sort((a, b) => JSON.stringify(obj[b.key]).length - JSON.stringify(obj[a.key]).length)

  const result: Record<string, unknown> = { ...obj }
  const notes: string[] = []
  const render = (): string => {
    const next = call.name.startsWith('read_file') ? lastNumberedLine(result.content) : undefined
    if (next !== undefined) result.end_line = next
    const marker = `[Cut to fit the context window: ${notes.join('; ')}. ${narrowHint(call.name, args, next && next + 1)}]`
    return JSON.stringify({ ...result, cut_to_fit: marker })
  }
  for (const piece of pieces) {
    notes.push('')
    const keepFits = (keep: number): boolean => {
      result[piece.key] = piece.cut(keep)
      notes[notes.length - 1] = piece.describe(keep)
      return count(render()) <= maxTokens
    }
    if (!keepFits(0)) continue // even empty, other fields are too big: cut them too
    // A proportional first guess, then a binary search near it (never counting the whole field again).
    const guess = Math.min(
      piece.units,
      Math.floor((piece.units * maxTokens) / Math.max(1, count(JSON.stringify(obj[piece.key])))),
    )
    let lo = 0
    let hi = Math.max(0, guess - 1)
    if (keepFits(guess)) [lo, hi] = [guess, Math.min(piece.units, Math.ceil(guess * 1.25) + 1)]
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2)
      if (keepFits(mid)) lo = mid
      else hi = mid - 1
    }
    keepFits(lo)
    return render()
  }
  // Nothing to shorten (or nothing fits): say so in the fewest tokens.
  const hint = narrowHint(call.name, args)
  return JSON.stringify({
    ok: obj.ok !== false,
    cut_to_fit: `[This result (${output.length} characters) does not fit the context window and was left out. ${hint}]`,
  })
}
