import fs from 'node:fs/promises'
import { z } from 'zod'
import { createGlobFilter } from '../containment/globs'
import { unreadablePaths, type UnreadablePath } from '../containment/ripgrep'
import { fail, loadTextFile, readGated, resolvePath, statKind } from './files'
import { optionalBool, optionalInt, optionalString, pathArg } from './schema'
import {
  EMPTY_FILE,
  INVALID_UTF8_NOTE,
  countLines,
  formatBytes,
  numberedView,
  splitLines,
  truncatedItems,
  truncatedLines,
  truncatedSearch,
} from './text'
import { decodeText, isBinary } from '../../shared/text-bytes'
import type { Outcome, ReadTool, ToolResult } from './types'

const LIST_DEFAULT = 1000
const LIST_MAX = 10_000
const SEARCH_DEFAULT = 100
const SEARCH_MAX = 1000
const SEARCH_FILES_DEFAULT = 200
const SEARCH_FILES_MAX = 10_000
/** Longest matching line shown by search; longer lines are cut around the match. */
const SEARCH_TEXT_WIDTH = 200
/**
 * The most of a matching line search reads (ripgrep's `--max-columns`, with a preview of
 * that much): a match further along a longer line is named, not shown. With at most
 * SEARCH_MAX matches of SEARCH_TEXT_WIDTH characters kept, a search holds a few MB at most.
 */
const SEARCH_LINE_BYTES = 1024 * 1024

const listFilesInput = z.object({
  prefix: optionalString(
    'Only list files under this directory (project-relative, e.g. "src/components"). Omit for the whole project.',
  ),
  glob: optionalString(
    'Only list files matching this glob, gitignore-style: "*.ts" matches at any depth, "src/**/*.test.ts" is anchored at the root, braces like "*.{ts,tsx}" work, a leading "!" excludes.',
  ),
  limit: optionalInt(`Most paths to return (default ${LIST_DEFAULT}, max ${LIST_MAX}).`),
})

export const listFilesTool: ReadTool<typeof listFilesInput> = {
  name: 'list_files',
  family: 'read',
  mutating: false,
  description:
    "List the project's files (recursively, sorted, project-relative paths). Skips what .gitignore ignores and denied paths (.git/, node_modules/, dist/, secrets such as .env and keys).",
  input: listFilesInput,
  async run(input, ctx) {
    const limit = Math.min(input.limit ?? LIST_DEFAULT, LIST_MAX)
    let prefix: string | undefined
    if (input.prefix !== undefined && input.prefix.trim() !== '' && input.prefix.trim() !== '.') {
      const dir = resolvePath(ctx, input.prefix)
      if (!dir.ok) return dir
      const { kind } = await statKind(dir.abs)
      if (kind === 'missing')
        return fail(
          `"${input.prefix}" does not exist. Call list_files without a prefix to see the project's layout.`,
        )
      if (kind !== 'directory')
        return {
          ok: true,
          files: [dir.rel],
          count: 1,
          total: 1,
          note: `"${dir.rel}" is a file, not a directory.`,
        }
      if (dir.rel !== '.') prefix = dir.rel
    }
    const {
      files,
      truncated,
      total,
      skipped = [],
    } = await ctx.sandbox.listFiles({
      prefix,
      glob: input.glob || undefined,
      limit,
      signal: ctx.signal,
    })
    // `total` counts every match, `count` the paths returned (fewer when the limit cut the list).
    const result: ToolResult = { ok: true, files, count: files.length, total }
    if (skipped.length > 0) {
      result.skipped = skipped.slice(0, UNREADABLE_SHOWN)
      result.note = describeSkipped(skipped)
    }
    if (truncated)
      result.truncated = `${truncatedItems(files.length)} Narrow it with prefix or glob${limit < LIST_MAX ? `, or raise limit (max ${LIST_MAX})` : ''}.`
    if (files.length === 0 && skipped.length === 0) {
      result.note =
        prefix && ctx.sandbox.isIgnored(prefix)
          ? `"${prefix}" is ignored by .gitignore, so listings skip it; you can still read_file a file in it by its exact path.`
          : 'No files match.'
    }
    return result
  },
}

const readFileInput = z.object({
  path: pathArg('Path of the file to read, relative to the project root.'),
  start_line: optionalInt('First line to show (1-based). Default 1.'),
  end_line: optionalInt('Last line to show (1-based, inclusive). Default: end of file.'),
})

export const readFileTool: ReadTool<typeof readFileInput> = {
  name: 'read_file',
  family: 'read',
  mutating: false,
  description:
    'Read a text file. Each line comes back prefixed with its line number and a tab ("12\\tconst x = 1"), so you can pass exact numbers to edit_lines. ' +
    'The "N\\t" prefix is not part of the file: never copy it into edit_file\'s old_string or write_file\'s content. ' +
    'Long files are cut at 2000 lines (or the size limit) with a note saying where to continue with start_line.',
  input: readFileInput,
  async run(input, ctx) {
    const file = resolvePath(ctx, input.path)
    if (!file.ok) return file
    const loaded = await loadTextFile(file, ctx.sandbox.gate)
    if (!loaded.ok) return loaded
    ctx.reads.recordRead(file.rel, loaded.fingerprint)
    const view = viewLines(
      loaded.text,
      { start: input.start_line, end: input.end_line },
      ctx.limits.maxReadBytes,
    )
    if (!view.ok) return view
    return {
      ok: true,
      path: file.rel,
      bytes: loaded.bytes,
      ...view.fields,
      ...textMeta(loaded.text, loaded.invalidUtf8),
    }
  },
}

/**
 * The numbered view of a file's text, as read_file and read_file_original return it: lines
 * `range.start`..`range.end` (1-based, inclusive; the whole file when absent).
 */
export function viewLines(
  text: string,
  range: { start?: number; end?: number },
  maxBytes: number,
  continueHint: (nextLine: number) => string = (next) =>
    `Call read_file again with start_line=${next} to continue.`,
): Outcome<{ fields: Record<string, unknown> }> {
  const { start, end } = range
  const lines = splitLines(text)
  const total = lines.length
  if (total === 0) {
    if ((start ?? 1) > 1) return fail(`The file is empty (0 lines); there is no line ${start}.`)
    return { ok: true, fields: { total_lines: 0, content: EMPTY_FILE } }
  }
  const from = start ?? 1
  if (from > total) return fail(`start_line ${from} is past the end of the file, which has ${total} lines.`)
  const to = Math.min(end ?? total, total)
  if (to < from)
    return fail(`end_line ${end} is before start_line ${from}; give a range with start_line ≤ end_line.`)
  const view = numberedView(lines, from, to, maxBytes)
  const fields: Record<string, unknown> = {
    total_lines: total,
    start_line: view.firstLine,
    end_line: view.lastLine,
    content: view.content,
  }
  if (view.remaining > 0) {
    const shown = view.lastLine - view.firstLine + 1
    fields.truncated = `${truncatedLines(shown, view.remaining)} ${continueHint(view.lastLine + 1)}`
  }
  return { ok: true, fields }
}

export function textMeta(text: string, invalidUtf8: boolean): Record<string, unknown> {
  const meta: Record<string, unknown> = {}
  if (text.includes('\r\n')) meta.line_endings = 'crlf'
  if (invalidUtf8) {
    meta.encoding = 'invalid-utf8'
    meta.note = INVALID_UTF8_NOTE
  }
  return meta
}

const fileInfoInput = z.object({
  path: pathArg('Path of the file or directory, relative to the project root.'),
})

export const fileInfoTool: ReadTool<typeof fileInfoInput> = {
  name: 'file_info',
  family: 'read',
  mutating: false,
  description:
    'Facts about a file or directory without reading it: type, size, line count, whether it is binary or ignored, last modification.',
  input: fileInfoInput,
  async run(input, ctx) {
    const file = resolvePath(ctx, input.path)
    if (!file.ok) return file
    let stat: Awaited<ReturnType<typeof fs.stat>>
    try {
      stat = await fs.stat(file.abs)
    } catch {
      return fail(`"${input.path}" does not exist. Use list_files to see which files exist.`)
    }
    const info: ToolResult = {
      ok: true,
      path: file.rel,
      type: stat.isDirectory() ? 'directory' : stat.isFile() ? 'file' : 'other',
      modified: new Date(stat.mtimeMs).toISOString(),
      mode: (stat.mode & 0o777).toString(8),
      ignored: ctx.sandbox.isIgnored(file.rel),
    }
    if (stat.isDirectory()) {
      info.entries = (await fs.readdir(file.abs)).length
      return info
    }
    info.size = stat.size
    info.size_text = formatBytes(stat.size)
    if (stat.isFile() && stat.size <= 16 * 1024 * 1024) {
      const read = readGated(ctx.sandbox.gate, file, { maxBytes: 16 * 1024 * 1024 })
      if (!read.ok) return fail(read.error)
      const data = read.data
      info.binary = isBinary(data)
      if (!info.binary) {
        const { text, invalidUtf8 } = decodeText(data)
        info.lines = countLines(text)
        info.encoding = invalidUtf8 ? 'invalid-utf8' : 'utf-8'
      }
    }
    info.read_in_session = ctx.reads.lastRead(file.rel) !== undefined
    return info
  },
}

const searchInput = z.object({
  query: z.string().min(1).describe('Text to find. Literal text unless regex is true.'),
  regex: optionalBool('Treat query as a regular expression (Rust regex syntax). Default false.'),
  case_sensitive: optionalBool('true (the default): exact case; false: ignore case.'),
  prefix: optionalString('Only search under this directory (project-relative).'),
  glob: optionalString('Only search files matching this glob, e.g. "*.ts" or "src/**/*.{ts,tsx}".'),
  limit_matches: optionalInt(`Most matching lines to return (default ${SEARCH_DEFAULT}, max ${SEARCH_MAX}).`),
  limit_files: optionalInt(
    `Most files to return matches from (default ${SEARCH_FILES_DEFAULT}, max ${SEARCH_FILES_MAX}); the search stops at the next file.`,
  ),
})

interface Match {
  path: string
  line: number
  text: string
}

export const searchInFilesTool: ReadTool<typeof searchInput> = {
  name: 'search_in_files',
  family: 'read',
  mutating: false,
  description:
    'Search file contents (ripgrep) and return each matching line as {path, line, text}. Skips the same files as list_files (ignored, denied, binary).',
  input: searchInput,
  async run(input, ctx) {
    const limit = Math.min(input.limit_matches ?? SEARCH_DEFAULT, SEARCH_MAX)
    const limitFiles = Math.min(input.limit_files ?? SEARCH_FILES_DEFAULT, SEARCH_FILES_MAX)
    const args = searchArgs(input)
    let prefix: string | undefined
    if (input.prefix !== undefined && input.prefix.trim() !== '' && input.prefix.trim() !== '.') {
      const dir = resolvePath(ctx, input.prefix)
      if (!dir.ok) return dir
      if ((await statKind(dir.abs)).kind === 'missing')
        return fail(`"${input.prefix}" does not exist. Use list_files to see the project's layout.`)
      if (dir.rel !== '.') prefix = dir.rel
    }
    const matchesGlob = input.glob ? createGlobFilter(input.glob) : undefined
    const matches: Match[] = []
    const files = new Set<string>()
    let truncated: 'matches' | 'files' | undefined
    let scanned: number | undefined
    const run = await ctx.sandbox.ripgrep(args, {
      prefix,
      signal: ctx.signal,
      fileOf: pathOfLine,
      onLine: (line) => {
        const match = parseMatch(line)
        if (!match) {
          const stat = SEARCHED_STAT.exec(line.toString('latin1'))
          if (stat) scanned = Number(stat[1])
          return true
        }
        if (matchesGlob && !matchesGlob(match.path)) return true
        if (matches.length >= limit) {
          truncated = 'matches'
          return false
        }
        if (!files.has(match.path) && files.size >= limitFiles) {
          truncated = 'files'
          return false
        }
        files.add(match.path)
        matches.push(match)
        return true
      },
    })
    const unreadable = run.code === 2 ? unreadablePaths(run.stderr) : []
    if (run.code === 2 && unreadable.length === 0 && matches.length === 0) {
      const reason =
        run.stderr.trim().split('\n').slice(0, 6).join('\n') || 'ripgrep gave no reason (exit code 2).'
      return fail(
        input.regex
          ? `The search failed; the regex is probably invalid:\n${reason}\nFix the pattern, or set regex to false to search for the literal text.`
          : `The search failed: ${reason}`,
      )
    }
    if (unreadable.length > 0 && matches.length === 0 && NOTHING_SEARCHED.test(run.stderr))
      return fail(`The search could read no file: ${describeUnreadable(unreadable)}`)
    matches.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line))
    const limited = truncated === 'files' ? limitFiles : limit
    return searchResult(
      input.query,
      { matches, files: files.size, scanned, unreadable },
      truncated && { by: truncated, limit: limited },
    )
  },
}

/** ripgrep's flags for a search: the query, literal or a regex, with or without case. */
function searchArgs(input: z.infer<typeof searchInput>): string[] {
  // Plain `path NUL line:column:text` output, not --json: no escaping of long
  // minified lines, and a line is cut to its window without being parsed or decoded whole.
  const args = [
    '--no-heading',
    '--with-filename',
    '--line-number',
    '--column',
    '--null',
    '--color',
    'never',
    `--max-columns=${SEARCH_LINE_BYTES}`,
    '--max-columns-preview',
    // The closing counts ("N files searched") give scanned_files.
    '--stats',
  ]
  if (!input.regex) args.push('--fixed-strings')
  // Case-sensitive unless asked otherwise, as the tool contract has always been.
  args.push(input.case_sensitive === false ? '--ignore-case' : '--case-sensitive')
  args.push('--regexp', input.query)
  return args
}

/** What a search found: its matches (sorted), in how many files, how many it read, what it could not. */
interface SearchFound {
  matches: Match[]
  files: number
  scanned: number | undefined
  unreadable: UnreadablePath[]
}

/** The search's answer to the model; `cut`: the limit that stopped it early, if one did. */
function searchResult(
  query: string,
  found: SearchFound,
  cut: { by: 'matches' | 'files'; limit: number } | undefined,
): ToolResult {
  const { matches, unreadable } = found
  const result: ToolResult = { ok: true, query, matches, count: matches.length, matched_files: found.files }
  // ripgrep prints its counts only when it searched to the end.
  if (found.scanned !== undefined) result.scanned_files = found.scanned
  if (cut)
    result.truncated =
      cut.by === 'files'
        ? `${truncatedSearch(cut.limit)} (limit_files: matches from ${cut.limit} files). Narrow the query, prefix or glob, or raise limit_files, to see the rest.`
        : `${truncatedSearch(cut.limit)} Narrow the query, prefix or glob to see the rest.`
  if (unreadable.length > 0) {
    result.unreadable = unreadable.slice(0, UNREADABLE_SHOWN)
    result.note = `${matches.length === 0 ? 'No matches in the files that could be read. ' : ''}${describeUnreadable(unreadable)}`
  } else if (matches.length === 0) result.note = 'No matches.'
  return result
}

/** ripgrep's `--stats` line counting the files it read. */
const SEARCHED_STAT = /^(\d+) files? searched\s*$/

/** ripgrep's closing message when every path it was given failed or was filtered out. */
const NOTHING_SEARCHED = /^rg: No files were searched/m

/** What a listing left out because it could not reach it (sandbox.listFiles#skipped). */
function describeSkipped(skipped: readonly UnreadablePath[]): string {
  const first = skipped[0]
  const more = skipped.length > 1 ? ` (and ${skipped.length - 1} more, listed in "skipped")` : ''
  return `${skipped.length} path(s) skipped, they could not be listed: "${first.path}": ${first.reason}${more}. A path past the system's length limit (PATH_MAX) or in a folder without read permission cannot be read by any tool.`
}

/** The most unreadable paths listed in a result; the count says how many there were. */
const UNREADABLE_SHOWN = 20

/** How many paths could not be read, and the first one with its reason, for the model to act on. */
function describeUnreadable(unreadable: readonly UnreadablePath[]): string {
  const first = unreadable[0]
  const more = unreadable.length > 1 ? ` (and ${unreadable.length - 1} more, listed in "unreadable")` : ''
  return `${unreadable.length} path(s) could not be read, so their matches are missing: "${first.path}": ${first.reason}${more}. Fix the permissions or shorten the path, or read around it with a narrower prefix.`
}

/** The file of one line of ripgrep's `path NUL …` output; undefined for a line of no file. */
function pathOfLine(line: Buffer): string | undefined {
  const nul = line.indexOf(0)
  return nul < 0 ? undefined : line.toString('utf8', 0, nul).replace(/^\.\//, '')
}

/** One line of ripgrep's `path NUL line:column:text` output; undefined for anything else. */
function parseMatch(line: Buffer): Match | undefined {
  const nul = line.indexOf(0)
  if (nul < 0) return undefined
  const lineColon = line.indexOf(58, nul + 1) // ':'
  const colColon = lineColon < 0 ? -1 : line.indexOf(58, lineColon + 1)
  if (colColon < 0) return undefined
  const lineNumber = Number(line.toString('latin1', nul + 1, lineColon))
  const column = Number(line.toString('latin1', lineColon + 1, colColon))
  if (!Number.isInteger(lineNumber) || !Number.isInteger(column)) return undefined
  let text = line.subarray(colColon + 1)
  if (text.length > 0 && text[text.length - 1] === 13) text = text.subarray(0, text.length - 1) // \r
  // ripgrep's preview of a line over --max-columns ends with its own note.
  const tail = text.toString('latin1', Math.max(0, text.length - 64))
  const cut = / \[\.\.\. (omitted end of long line|\d+ more match(es)?)\]$/.exec(tail)
  if (cut) text = text.subarray(0, text.length - cut[0].length)
  const matchByte = Math.max(0, column - 1)
  let shown = excerpt(text, cut && matchByte >= text.length ? 0 : matchByte)
  if (cut && matchByte >= text.length)
    shown = `[TRUNCATED: first ${SEARCH_LINE_BYTES} bytes of the line read; the match at column ${column} is past them] ${shown}`
  else if (cut && !shown.endsWith('…')) shown += '…'
  return { path: pathOfLine(line)!, line: lineNumber, text: shown }
}

/** Lines up to this many bytes are decoded whole; longer ones only around the match. */
const WHOLE_LINE_BYTES = 4096

/** The matching line, trimmed, and cut to a window around the match when long (minified files). */
function excerpt(raw: Buffer, matchByte: number): string {
  if (raw.length <= WHOLE_LINE_BYTES) {
    const full = raw.toString('utf8')
    if (full.length <= SEARCH_TEXT_WIDTH) return full.trim()
    const at = raw.subarray(0, matchByte).toString('utf8').length
    const start = Math.max(0, at - 60)
    const end = Math.min(full.length, start + SEARCH_TEXT_WIDTH)
    return (start > 0 ? '…' : '') + full.slice(start, end).trim() + (end < full.length ? '…' : '')
  }
  // Over 4 KB is over 1,000 characters: decode a window wide enough for 60
  // characters before the match and 200 after it, cut at character boundaries.
  let from = Math.max(0, matchByte - 60 * 4)
  while (from > 0 && (raw[from] & 0xc0) === 0x80) from--
  let to = Math.min(raw.length, matchByte + SEARCH_TEXT_WIDTH * 4)
  while (to < raw.length && (raw[to] & 0xc0) === 0x80) to++
  const window = raw.toString('utf8', from, to)
  const at = raw.toString('utf8', from, matchByte).length
  const start = from === 0 ? Math.max(0, at - 60) : at - 60
  const end = Math.min(window.length, start + SEARCH_TEXT_WIDTH)
  const cutEnd = end < window.length || to < raw.length
  return (from > 0 || start > 0 ? '…' : '') + window.slice(start, end).trim() + (cutEnd ? '…' : '')
}

export const readTools = [listFilesTool, readFileTool, fileInfoTool, searchInFilesTool] as const
