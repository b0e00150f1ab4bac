import { openCodeIndexTables } from '../store/code-index-tables'
import type { Store } from '../store/types'
import type { CodeIndex, CodeIndexOptions } from './api'
import { createBuilder } from './builder'
import { createCheckStateCache } from './checkState'
import { createDerivedGraph } from './derived-graph'
import { createIndexState } from './index-state'
import { createQueries, indexStatus } from './queries'
import type { Language } from './types'

/*
 * The code index (docs/index.md): every file the sandbox lists (so .gitignore and
 * the denylist apply), parsed once per content hash and stored in SQLite. Four parts:
 * the state (index-state.ts: which files, their facts, whether the last build was
 * whole), the graph derived from it (derived-graph.ts: made on first use, dropped on
 * change), the builder (builder.ts: build() brings the state up to date with the
 * disk, update() re-reads named files, the watcher's saves) and the queries
 * (queries.ts). A new process loads only the stored paths, in milliseconds; a
 * file's facts are parsed on first use, all of them only when a query needs the
 * whole graph.
 */

export * from './api'

export function createCodeIndex(store: Store, opts: CodeIndexOptions): CodeIndex {
  const root = opts.root
  const prefix = opts.prefix?.replace(/^\.\/|\/+$/g, '') || undefined
  const tables = openCodeIndexTables<Language>(store, prefix ? `${root}//${prefix}` : root)
  const checkState = createCheckStateCache(opts.stateFile, root, () => tables.generation())
  const state = createIndexState(tables, () => checkState.load())
  const derived = createDerivedGraph(state)
  const builder = createBuilder({ opts, prefix, state, derived, checkState })
  return {
    root,
    build: builder.build,
    update: builder.update,
    status: () => indexStatus(state, { root, prefix }, builder.progress()),
    building: () => {
      const p = builder.progress()
      return p ? { ...p } : undefined
    },
    complete: () => (state.readMeta(), state.coverage.complete),
    ...createQueries(state, derived),
    onChange: derived.onChange,
  }
}
