/** Helpers to turn file bytes into what the model reads. */

export const INVALID_UTF8_NOTE =
  'This file is not valid UTF-8: undecodable bytes are shown as \uFFFD. edit_file and edit_lines refuse it, because writing it back would destroy those bytes.'

/** Lines without their terminators; a trailing newline does not start another line. */
export function splitLines(text: string): string[] {
  if (text === '') return []
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  for (let i = 0; i < lines.length; i++) if (lines[i].endsWith('\r')) lines[i] = lines[i].slice(0, -1)
  return lines
}

export function countLines(text: string): number {
  if (text === '') return 0
  let n = 0
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++
  return text.endsWith('\n') ? n : n + 1
}

export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8')
}

/** Most lines one read returns; more comes with a truncation marker and a hint to continue. */
export const MAX_LINES_PER_READ = 2000

export interface NumberedView {
  /** `N\tline` per line. */
  content: string
  firstLine: number
  lastLine: number
  /** Lines of the requested range not shown. */
  remaining: number
}

/**
 * Lines `from`..`to` (1-based, inclusive) as `N\tline`, cut at `MAX_LINES_PER_READ`
 * lines or `maxBytes` bytes, whichever comes first.
 */
export function numberedView(
  lines: readonly string[],
  from: number,
  to: number,
  maxBytes: number,
): NumberedView {
  const out: string[] = []
  let bytes = 0
  let n = from
  for (; n <= to && out.length < MAX_LINES_PER_READ; n++) {
    let entry = `${n}\t${lines[n - 1]}`
    const size = byteLength(entry) + 1
    if (bytes + size > maxBytes) {
      if (out.length > 0) break
      // One line larger than the whole budget (minified code): show its start rather than nothing.
      entry = entry.slice(0, Math.max(0, Math.floor(maxBytes / 4))) + ' [line cut: too long to show]'
    }
    out.push(entry)
    bytes += size
  }
  return { content: out.join('\n'), firstLine: from, lastLine: n - 1, remaining: to - (n - 1) }
}

export const truncatedLines = (shown: number, more: number) =>
  `[TRUNCATED: showing first ${shown} lines, ${more} more available]`
export const truncatedItems = (n: number) => `[TRUNCATED: first ${n} items]`
export const truncatedSearch = (n: number) => `[TRUNCATED: reached limit ${n} before completing search]`
export const EMPTY_FILE = 'empty file: 0 lines'

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`
  return `${(n / (1024 * 1024)).toFixed(1)} MB`
}
