import { truncate } from './format'
import { isRecord } from '../../../shared/records'

/*
 * One line that says what a tool call is about, for the timeline row: the path of a
 * read or an edit, the command of run_command, the query of a search. Tools the app
 * does not know (MCP servers, newer versions) fall back to their most telling argument.
 */

const MAX = 120

type Args = Record<string, unknown>

function str(args: Args, key: string): string | undefined {
  const v = args[key]
  if (typeof v === 'string' && v.trim() !== '') return v
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  return undefined
}

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? ''
  return line.trim()
}

/** "src/a.ts:10-20", "src/a.ts:10+" or just the path. */
function withLines(path: string | undefined, start: string | undefined, end: string | undefined): string {
  if (!path) return ''
  if (start && end) return `${path}:${start}-${end}`
  if (start) return `${path}:${start}+`
  if (end) return `${path}:1-${end}`
  return path
}

function join(...parts: Array<string | undefined | false>): string {
  return parts.filter((p): p is string => typeof p === 'string' && p !== '').join(' · ')
}

function scope(args: Args): string | undefined {
  const where = str(args, 'prefix') ?? str(args, 'path')
  const glob = str(args, 'glob')
  if (where && glob) return `in ${where} (${glob})`
  if (where) return `in ${where}`
  if (glob) return glob
  return undefined
}

const SPECIFIC: Record<string, (args: Args) => string> = {
  run_command: (a) => firstLine(str(a, 'command') ?? ''),
  read_file: (a) => withLines(str(a, 'path'), str(a, 'start_line'), str(a, 'end_line')),
  edit_lines: (a) => withLines(str(a, 'path'), str(a, 'start_line'), str(a, 'end_line')),
  get_function: (a) => join(str(a, 'path'), str(a, 'name')),
  get_class: (a) => join(str(a, 'path'), str(a, 'name')),
  search_in_files: (a) => join(quoted(str(a, 'query')), scope(a)),
  list_files: (a) => scope(a) ?? 'whole project',
  list_changed_files: (a) => scope(a) ?? 'whole project',
  run_tests: (a) => join(str(a, 'path'), str(a, 'filter') && `-t ${str(a, 'filter')}`) || 'all tests',
  run_lint: (a) => str(a, 'path') ?? 'whole project',
  git_commit: (a) => firstLine(str(a, 'message') ?? ''),
  git_diff: (a) => join(str(a, 'ref'), a.staged === true && 'staged', str(a, 'path')) || 'unstaged changes',
  git_log: (a) => (str(a, 'limit') ? `last ${str(a, 'limit')}` : ''),
}

function quoted(text: string | undefined): string | undefined {
  return text === undefined ? undefined : `“${text}”`
}

/** Keys that usually say the most about a call, best first. */
const TELLING_KEYS = [
  'path',
  'file',
  'command',
  'query',
  'symbol',
  'ref',
  'url',
  'name',
  'message',
  'prefix',
  'glob',
  'pattern',
]

/** Arguments of a tool call as one short line; '' when there is nothing worth showing. */
export function summarizeArgs(name: string, args: unknown): string {
  if (typeof args === 'string') return truncate(firstLine(args), MAX)
  if (!isRecord(args)) return ''
  const a: Args = args
  const specific = SPECIFIC[name]
  if (specific) return truncate(specific(a), MAX)
  for (const key of TELLING_KEYS) {
    const value = str(a, key)
    if (value) return truncate(firstLine(value), MAX)
  }
  // Unknown shape: the scalar arguments as key=value.
  const pairs = Object.entries(a)
    .filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? firstLine(v) : String(v)}`)
  return truncate(pairs.join(' '), MAX)
}
