import {
  buildGraph,
  entryPoints,
  pageRank,
  patchGraph,
  referenceCounts,
  type EntryPoint,
  type Graph,
} from './graph'
import { filterIdents, patchable } from './index-helpers'
import type { IndexState } from './index-state'
import type { FileFacts } from './types'

/*
 * What the code index derives from its state (code-index.ts): the import graph with
 * its definitions, the files' PageRank, reference counts and entry points. Each is
 * made on first use and dropped when the state changes; an update that leaves every
 * file's definitions and imports comparable patches the graph in place instead.
 */

export interface DerivedGraph {
  graph(): Graph
  ranks(): Map<string, number>
  referenceCounts(): Map<string, number>
  entryPoints(): EntryPoint[]
  /**
   * Brings a graph already made up to date with files re-read by an update, when it can be
   * patched file by file (`before`: their facts before); false when it must be made again.
   */
  patch(changed: readonly string[], before: ReadonlyMap<string, FileFacts | undefined>): boolean
  /** After a change: `patched` when `patch` already brought the graph up to date. */
  invalidate(changed: readonly string[], patched?: boolean): void
  /** Called with the changed paths after every change; returns the unsubscribe. */
  onChange(listener: (changed: readonly string[]) => void): () => void
}

export function createDerivedGraph(state: IndexState): DerivedGraph {
  const listeners = new Set<(changed: readonly string[]) => void>()
  let graph: Graph | undefined
  let counts: Map<string, number> | undefined
  let ranks: Map<string, number> | undefined
  let entries: EntryPoint[] | undefined

  const made = (): Graph => (graph ??= buildGraph(state.allFacts()))
  return {
    graph: made,
    ranks: () => (ranks ??= pageRank(state.allFacts(), made().dependencies)),
    referenceCounts: () =>
      (counts ??= referenceCounts(made().definitions, filterIdents(state.tables.allIdents(), state.indexed))),
    entryPoints: () => (entries ??= entryPoints(state.allFacts(), made().dependencies, made().dependents)),
    patch(changed, before) {
      const g = graph
      if (g === undefined || !changed.every((p) => patchable(before.get(p), state.known(p)))) return false
      for (const p of changed) patchGraph(g, p, before.get(p)!, state.known(p)!)
      return true
    },
    invalidate(changed, patched = false) {
      if (changed.length === 0) return
      if (!patched) graph = undefined
      counts = undefined
      ranks = undefined
      entries = undefined
      for (const l of listeners) l(changed)
    },
    onChange(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}
