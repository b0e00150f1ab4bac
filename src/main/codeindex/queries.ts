import { EXTRACTOR_VERSION } from './analyze'
import type { BuildProgress, CodeIndex, IndexStatus, Reference } from './api'
import type { DerivedGraph } from './derived-graph'
import { identLines } from './idents'
import { compare, rankSymbols } from './index-helpers'
import type { IndexState } from './index-state'
import type { Language } from './types'

/*
 * What the code index answers (code-index.ts): definitions, references, the import
 * graph's neighbours, hubs and ranks, memos and the status — read from the state and
 * the derived graph, never changing either.
 */

export type Queries = Omit<
  CodeIndex,
  'root' | 'build' | 'update' | 'building' | 'complete' | 'status' | 'onChange'
>

export function createQueries(state: IndexState, derived: DerivedGraph): Queries {
  const { tables, indexed } = state
  return {
    memo(key, make) {
      const generation = tables.generation()
      const kept = tables.memo(key, generation)
      if (kept !== undefined) return kept
      const value = make()
      // Made from what another process changed meanwhile? Then it is not kept.
      if (tables.generation() === generation) tables.setMemo(key, generation, value)
      return value
    },
    file: state.factsOf,
    paths(under) {
      state.ensureLoaded()
      const dir = under?.replace(/^\.\/|\/+$/g, '')
      const all = [...indexed].filter((p) => !dir || dir === '.' || p === dir || p.startsWith(dir + '/'))
      return all.sort()
    },
    definitions(symbol) {
      const defs = derived.graph().definitions.get(symbol) ?? []
      return [...defs].sort(
        (a, b) => Number(b.exported) - Number(a.exported) || compare(a.path, b.path) || a.line - b.line,
      )
    },
    references: (symbol, limit) => references(state, derived, symbol, limit),
    dependencies: (p) => derived.graph().dependencies.get(p) ?? [],
    dependents: (p) => [...(derived.graph().dependents.get(p) ?? [])].sort(),
    hubs(limit) {
      return [...derived.graph().dependents]
        .map(([p, set]) => ({ path: p, dependents: set.size }))
        .sort((a, b) => b.dependents - a.dependents || compare(a.path, b.path))
        .slice(0, limit)
    },
    entryPoints: () => derived.entryPoints(),
    graph: () => wholeGraph(state, derived),
    rankedSymbols: (limit) =>
      rankSymbols(
        {
          definitions: derived.graph().definitions,
          refs: derived.referenceCounts(),
          rank: derived.ranks(),
          files: indexed.size,
        },
        limit,
      ),
  }
}

/** Where `symbol` (a dotted name searches its last part) occurs, its definitions left out. */
function references(
  state: IndexState,
  derived: DerivedGraph,
  symbol: string,
  limit: number,
): { references: Reference[]; truncated: boolean } {
  const name = symbol.includes('.') ? symbol.slice(symbol.lastIndexOf('.') + 1) : symbol
  const defLines = new Set((derived.graph().definitions.get(symbol) ?? []).map((d) => `${d.path}:${d.line}`))
  const out: Reference[] = []
  for (const row of state.tables.filesWithIdent(name)) {
    if (!state.indexed.has(row.path)) continue
    for (const line of identLines(row.idents, name)) {
      if (defLines.has(`${row.path}:${line}`)) continue
      if (out.length >= limit) return { references: out, truncated: true }
      out.push({ path: row.path, line })
    }
  }
  return { references: out, truncated: false }
}

function wholeGraph(state: IndexState, derived: DerivedGraph): ReturnType<CodeIndex['graph']> {
  const g = derived.graph()
  const edges: Array<{ from: string; to: string }> = []
  for (const [from, deps] of g.dependencies)
    for (const to of new Set(deps.flatMap((d) => d.targets))) if (to !== from) edges.push({ from, to })
  return {
    files: [...state.allFacts()].map(([p, f]) => ({
      path: p,
      language: f.language,
      rank: derived.ranks().get(p) ?? 0,
      dependents: g.dependents.get(p)?.size ?? 0,
    })),
    edges,
    referenceCounts: derived.referenceCounts(),
  }
}

/** The index's status: counts from SQL, no row loaded for them. */
export function indexStatus(
  state: IndexState,
  where: { root: string; prefix?: string },
  building: BuildProgress | undefined,
): IndexStatus {
  const languages: Partial<Record<Language, number>> = {}
  let bytes = 0
  let withErrors = 0
  let skipped = 0
  state.ensureLoaded()
  for (const row of state.tables.summary(EXTRACTOR_VERSION)) {
    languages[row.language] = row.files
    bytes += row.bytes
    withErrors += row.withErrors
    skipped += row.skipped
  }
  const { coverage } = state
  return {
    root: where.root,
    ...(where.prefix ? { prefix: where.prefix } : {}),
    files: state.indexed.size,
    bytes,
    builtAt: coverage.builtAt ?? state.tables.meta()?.builtAt,
    languages,
    filesWithParseErrors: withErrors,
    skippedFiles: skipped,
    grammarErrors: [...state.grammarErrors],
    ...(coverage.warning ? { warning: coverage.warning } : {}),
    ...(building ? { building: { ...building } } : {}),
  }
}
