import path from 'node:path'
import type { StoredProblem } from '../store/code-index-tables'
import type { BuildReport, FileProblem, RankedSymbol } from './api'
import type { Definition } from './graph'
import { isListed } from '../snapshot/sortedPaths'
import type { FileFacts } from './types'

/* The code index's small pure pieces (code-index.ts): ranking, problems, paths. */

/** Problems listed per kind in a build report; the status counts all of them. */
const MAX_REPORTED = 50

export function push(list: FileProblem[], item: FileProblem): void {
  if (list.length < MAX_REPORTED) list.push(item)
}

/** Which stored problems a build reports: of files `listed` (sorted) but not `changed`, with their facts. */
export interface StoredProblemsOf {
  listed: readonly string[]
  changed: ReadonlySet<string>
  factsOf: (rel: string) => FileFacts | undefined
}

/** The stored problems of listed (`listed` sorted), unchanged files, into a build's report. */
export function storedProblems(
  rows: Iterable<StoredProblem>,
  { listed, changed, factsOf }: StoredProblemsOf,
  result: BuildReport,
): void {
  for (const row of rows) {
    if (changed.has(row.path) || !isListed(listed, row.path)) continue
    // The reason is in the facts: parsed only for the files reported.
    if ((row.kind === 'skipped' || row.kind === 'binary') && result.skipped.length < MAX_REPORTED)
      push(result.skipped, {
        path: row.path,
        reason: factsOf(row.path)?.note ?? 'binary file: metadata only',
      })
    if (row.parseErrors > 0)
      push(result.parseErrors, { path: row.path, reason: `${row.parseErrors} syntax error(s)` })
  }
}

/** What symbols are ranked by: their definitions, reference counts by name, files' PageRank, the file count. */
export interface SymbolGraph {
  definitions: ReadonlyMap<string, Definition[]>
  refs: ReadonlyMap<string, number>
  rank: ReadonlyMap<string, number>
  files: number
}

/** Definitions ranked by references from other files, weighted by their file's PageRank. */
export function rankSymbols({ definitions, refs, rank, files }: SymbolGraph, limit: number): RankedSymbol[] {
  const n = files || 1
  const seen = new Set<Definition>()
  const ranked: RankedSymbol[] = []
  for (const defs of definitions.values()) {
    for (const d of defs) {
      if (seen.has(d)) continue
      seen.add(d)
      const references = refs.get(d.name) ?? 0
      if (references === 0) continue
      // A file of average PageRank weighs 1; more central files more.
      const score = references * (0.5 + (rank.get(d.path) ?? 0) * n)
      ranked.push({ ...d, references, score: Math.round(score * 100) / 100 })
    }
  }
  return ranked
    .sort((a, b) => b.score - a.score || compare(a.path, b.path) || a.line - b.line)
    .slice(0, limit)
}

/**
 * A changed file can be patched into the graph when it existed before and its
 * change cannot move other files' imports: not a config file (tsconfig,
 * package.json, go.mod), not a Java file whose package changed.
 */
export function patchable(before: FileFacts | undefined, after: FileFacts | undefined): boolean {
  if (!before || !after) return false
  if (before.kind === 'config' || after.kind === 'config') return false
  return before.package === after.package
}

export function* filterIdents(
  rows: Iterable<{ path: string; idents: string }>,
  indexed: ReadonlySet<string>,
): Generator<{ path: string; idents: string }> {
  for (const row of rows) if (indexed.has(row.path)) yield row
}

export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** A watcher's absolute path or a root-relative one → root-relative POSIX, or undefined outside the root. */
export function toRel(root: string, input: string): string | undefined {
  const rel = path.isAbsolute(input) ? path.relative(root, input) : input
  if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined
  return rel.split(path.sep).join('/').replace(/^\.\//, '')
}
