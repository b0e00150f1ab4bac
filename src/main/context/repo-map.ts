import { z } from 'zod'
import type { BuildProgress, CodeIndex } from '../codeindex/code-index'
import { COMPACT_PROMPT_WINDOW } from './windows'
import { tokenizerFor } from './tokens'

/**
 * The repo map of the initial context (docs/architecture.md#context, Aider's idea): the shape of the
 * project and its most referenced definitions, without code bodies, ranked and cut
 * to a token budget. Code itself comes in through the tools, so a small local model
 * can find its way in a large project without drowning its window.
 */

/** Kept as JSON in the index's memo table, so read back through the schema. */
const RepoMap = z.object({ text: z.string(), tokens: z.number(), files: z.number(), symbols: z.number() })
export type RepoMap = z.infer<typeof RepoMap>

/**
 * A tenth of the window, within [500, 4000] tokens; a twentieth on a small window
 * (compact prompt), where every token of the map is one the session cannot use.
 */
export function repoMapBudget(windowTokens: number): number {
  if (windowTokens <= COMPACT_PROMPT_WINDOW) return Math.floor(windowTokens * 0.05)
  return Math.max(500, Math.min(4000, Math.floor(windowTokens * 0.1)))
}

const HEADER =
  '# Project map\nThe most important files first (ranked by how much the rest of the project depends on them), with their main definitions and line numbers. No code bodies: read files or use the code tools (get_structure, get_function, find_definition, …) for the code.'
/** A small window's sessions are not offered the code tools (compact-prompt.ts). */
const COMPACT_HEADER = '# Project map\nMain files and definitions (line numbers). Read files for the code.'

function folderSummary(paths: readonly string[]): string {
  const counts = new Map<string, number>()
  for (const p of paths) {
    const slash = p.indexOf('/')
    const top = slash === -1 ? '.' : `${p.slice(0, slash)}/`
    counts.set(top, (counts.get(top) ?? 0) + 1)
  }
  const parts = [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 15)
    .map(([dir, n]) => `${dir === '.' ? '(root)' : dir} ${n}`)
  return `Folders (files indexed): ${parts.join(' · ')}${counts.size > 15 ? ' · …' : ''}`
}

/**
 * The outline of the whole file tree (folders two deep, with their file counts) from a listing,
 * for a partial map: cheap (one pass over the paths), and every file is in it, indexed or not.
 */
export function treeOutline(paths: readonly string[], maxFolders = 40): string {
  const counts = new Map<string, number>()
  // A listing is sorted, so a path mostly falls in the folder of the one before it: a prefix
  // test instead of splitting every path (85,000 splits took ~0.1–0.3 s at a session's start).
  // Only a folder two deep can be reused: under 'a/' (from 'a/x.ts') the next path may be 'a/b/y.ts'.
  let folder = ''
  let twoDeep = false
  let run = 0
  const endRun = () => run > 0 && counts.set(folder, (counts.get(folder) ?? 0) + run)
  for (const p of paths) {
    if (twoDeep && p.startsWith(folder)) {
      run += 1
      continue
    }
    endRun()
    folder = outlineFolder(p)
    twoDeep = folder !== ROOT_FOLDER && folder.indexOf('/') < folder.length - 1
    run = 1
  }
  endRun()
  const shown = [...counts].sort((a, b) => (a[0] < b[0] ? -1 : 1)).slice(0, maxFolders)
  const lines = [
    `## File tree outline (${paths.length} files; the code index has not reached all of them yet)`,
    ...shown.map(([dir, n]) => `${dir} ${n}`),
  ]
  if (counts.size > maxFolders)
    lines.push(`(+${counts.size - maxFolders} more folders: list_files shows them)`)
  return lines.join('\n')
}

/** A path's folder two deep ('a/b/' for 'a/b/c/d.ts', 'a/' for 'a/x.ts'), or '(root)'. */
function outlineFolder(path: string): string {
  const first = path.indexOf('/')
  if (first < 0) return ROOT_FOLDER
  const second = path.indexOf('/', first + 1)
  return path.slice(0, (second < 0 ? first : second) + 1)
}

const ROOT_FOLDER = '(root)'

/** Said when the index is still being built: the map covers only part of the project. */
function partialNote(indexed: number, building: BuildProgress): string {
  const total = building.total > 0 ? ` of ${building.total}` : ''
  return (
    `Partial map: the code index is still being built in the background (${indexed}${total} files so far), ` +
    'so this map and the code tools cover only those; list_files and search_in_files see every file.'
  )
}

/**
 * Past this many indexed files the map is the folder summary only: ranking needs the
 * whole import graph and reference counts, seconds of main-thread work on a tree of
 * 70,000 files, which a session start must not wait for. The code tools still rank.
 */
export const RANKED_MAP_MAX_FILES = 20_000

/**
 * While the index is incomplete, past this many indexed files the map is the folder
 * summary: a partial map is not kept (the next session's index differs), so each
 * session start would rank again — ~0.5 s of main-thread work at 15,000 files.
 */
export const PARTIAL_RANKED_MAX_FILES = 2_000

type MapOptions = { budgetTokens: number; model?: string; maxRankedFiles?: number }

/**
 * The map of a whole index is kept with the index (CodeIndex.memo) and made again
 * only when the index changed: ranking needs every file's facts and identifiers,
 * which a session on an unchanged project then never loads.
 */
export function buildRepoMap(index: CodeIndex, opts: MapOptions): RepoMap {
  if (!index.complete()) {
    const most = Math.min(opts.maxRankedFiles ?? RANKED_MAP_MAX_FILES, PARTIAL_RANKED_MAX_FILES)
    return makeRepoMap(index, { ...opts, maxRankedFiles: most })
  }
  const key = `repo-map:1:${opts.budgetTokens}:${opts.model ?? ''}:${opts.maxRankedFiles ?? RANKED_MAP_MAX_FILES}`
  return RepoMap.parse(JSON.parse(index.memo(key, () => JSON.stringify(makeRepoMap(index, opts)))))
}

function makeRepoMap(index: CodeIndex, opts: MapOptions): RepoMap {
  const count = tokenizerFor(opts.model ?? '')
  const indexed = index.paths()
  if (indexed.length > (opts.maxRankedFiles ?? RANKED_MAP_MAX_FILES))
    return folderOnlyMap(index, indexed, count)
  const graph = index.graph()
  const paths = graph.files.map((f) => f.path)
  const symbolsByFile = new Map<string, Array<{ label: string; score: number }>>()
  const fileScore = new Map<string, number>()
  for (const s of index.rankedSymbols(3000)) {
    const kind = s.kind === 'method' && s.parent ? `${s.parent}.${s.name}` : `${s.kind} ${s.name}`
    const list = symbolsByFile.get(s.path) ?? []
    list.push({ label: `${kind} (${s.line})`, score: s.score })
    symbolsByFile.set(s.path, list)
    fileScore.set(s.path, (fileScore.get(s.path) ?? 0) + s.score)
  }
  const rank = new Map(graph.files.map((f) => [f.path, f.rank]))
  // Files whose definitions are referenced most come first; PageRank breaks ties.
  const ordered = [...paths].sort(
    (a, b) =>
      (fileScore.get(b) ?? 0) - (fileScore.get(a) ?? 0) ||
      (rank.get(b) ?? 0) - (rank.get(a) ?? 0) ||
      a.localeCompare(b),
  )

  const compact = opts.budgetTokens < 500
  const lines = [compact ? COMPACT_HEADER : HEADER, folderSummary(paths)]
  const building = index.building()
  if (building && !index.complete()) lines.push(partialNote(paths.length, building))
  lines.push('')
  let tokens = count(lines.join('\n'))
  let files = 0
  let symbols = 0
  for (const path of ordered) {
    const defs = withOwnDefinitions(index, path, symbolsByFile.get(path) ?? []).slice(0, 8)
    const entry = defs.length ? `${path}\n  ${defs.map((d) => d.label).join(' · ')}` : path
    const cost = count(entry) + 1
    if (tokens + cost > opts.budgetTokens) break
    lines.push(entry)
    tokens += cost
    files += 1
    symbols += defs.length
  }
  if (files < paths.length) {
    const more = `(+${paths.length - files} more files: ${compact ? 'list_files shows them' : 'list_files or get_structure shows them'})`
    lines.push(more)
    tokens += count(more)
  }
  return { text: lines.join('\n'), tokens, files, symbols }
}

/**
 * A file's ranked definitions, then (room allowing) the rest of its top-level ones in line order:
 * a definition no other file uses yet (a small or new project's) is still on the map.
 */
function withOwnDefinitions(
  index: CodeIndex,
  path: string,
  ranked: Array<{ label: string; score: number }>,
): Array<{ label: string; score: number }> {
  if (ranked.length >= 8) return ranked
  const facts = index.file(path)
  if (!facts) return ranked
  const seen = new Set(ranked.map((r) => r.label))
  const own = [
    ...facts.classes.map((c) => ({ line: c.line, label: `${c.kind} ${c.name} (${c.line})` })),
    ...facts.functions.map((f) => ({ line: f.line, label: `function ${f.name} (${f.line})` })),
  ]
    .sort((a, b) => a.line - b.line)
    .filter((d) => !seen.has(d.label))
    .map((d) => ({ label: d.label, score: 0 }))
  return [...ranked, ...own]
}

/** The map of a very big project: its folders, and where to look instead of a ranking. */
function folderOnlyMap(index: CodeIndex, paths: readonly string[], count: (text: string) => number): RepoMap {
  const lines = [HEADER.split('\n')[0], folderSummary(paths)]
  const building = index.building()
  const partial = !index.complete()
  if (building && partial) lines.push(partialNote(paths.length, building))
  const why = partial
    ? `A ranked map waits for the whole index (${paths.length} files indexed so far)`
    : `The project is too big for a ranked map (${paths.length} files indexed)`
  lines.push(`${why}: find_definition, get_dependents, get_structure and search_in_files find the way in.`)
  const text = lines.join('\n')
  return { text, tokens: count(text), files: 0, symbols: 0 }
}
