import path from 'node:path'
import { identNames } from './idents'
import { createResolver, type ImportKind, type Resolver } from './resolve'
import type { FileFacts, SymbolKind } from './types'

/*
 * What is derived from all files together: resolved imports, the dependency
 * graph both ways, the definition index, hubs, entry points and a PageRank over
 * the file graph. Rebuilt from the in-memory facts after a change (tens of
 * milliseconds for thousands of files), never stored.
 */

export interface Dependency {
  source: string
  line: number
  kind: ImportKind
  names: string[]
  /** Project files it resolves to; empty for external/builtin, or an internal import that matches no file. */
  targets: string[]
}

export interface Definition {
  name: string
  kind: SymbolKind
  path: string
  line: number
  endLine: number
  exported: boolean
  /** The class a method belongs to. */
  parent?: string
}

export interface EntryPoint {
  path: string
  reason: string
}

export interface Graph {
  resolve: Resolver
  dependencies: Map<string, Dependency[]>
  dependents: Map<string, Set<string>>
  definitions: Map<string, Definition[]>
}

export function definitionsOf(file: string, facts: FileFacts): Definition[] {
  const out: Definition[] = []
  for (const f of facts.functions)
    out.push({
      name: f.name,
      kind: 'function',
      path: file,
      line: f.line,
      endLine: f.endLine,
      exported: f.exported,
    })
  for (const c of facts.classes) {
    out.push({
      name: c.name,
      kind: c.kind,
      path: file,
      line: c.line,
      endLine: c.endLine,
      exported: c.exported,
    })
    for (const m of c.methods)
      out.push({
        name: m.name,
        kind: 'method',
        path: file,
        line: m.line,
        endLine: m.endLine,
        exported: c.exported && m.visibility === 'public',
        parent: c.name,
      })
  }
  for (const v of facts.variables)
    out.push({
      name: v.name,
      kind: v.kind,
      path: file,
      line: v.line,
      endLine: v.endLine,
      exported: v.exported,
    })
  return out
}

export function buildGraph(files: ReadonlyMap<string, FileFacts>): Graph {
  const graph: Graph = {
    resolve: createResolver(files),
    dependencies: new Map(),
    dependents: new Map(),
    definitions: new Map(),
  }
  for (const [file, facts] of files) addFile(graph, file, facts)
  return graph
}

/**
 * A file's bytes changed but the set of files did not: only its own edges and
 * definitions move, so a save costs one file's work instead of a rebuild.
 */
export function patchGraph(graph: Graph, file: string, before: FileFacts, after: FileFacts): void {
  for (const dep of graph.dependencies.get(file) ?? [])
    for (const t of dep.targets) graph.dependents.get(t)?.delete(file)
  graph.dependencies.delete(file)
  for (const def of definitionsOf(file, before))
    for (const key of keysOf(def)) {
      const list = graph.definitions.get(key)?.filter((d) => d.path !== file)
      if (list && list.length > 0) graph.definitions.set(key, list)
      else graph.definitions.delete(key)
    }
  addFile(graph, file, after)
}

const keysOf = (def: Definition) => (def.parent ? [def.name, `${def.parent}.${def.name}`] : [def.name])

function addFile(graph: Graph, file: string, facts: FileFacts): void {
  if (facts.imports.length > 0) {
    const deps: Dependency[] = []
    for (const imp of facts.imports) {
      const r = graph.resolve(file, facts, imp)
      deps.push({ source: imp.source, line: imp.line, kind: r.kind, names: imp.names, targets: r.targets })
      for (const t of r.targets) {
        if (t === file) continue
        let set = graph.dependents.get(t)
        if (!set) graph.dependents.set(t, (set = new Set()))
        set.add(file)
      }
    }
    graph.dependencies.set(file, deps)
  }
  // Definitions are looked up by their plain name and, for methods, by Class.method.
  for (const def of definitionsOf(file, facts))
    for (const key of keysOf(def)) {
      const list = graph.definitions.get(key)
      if (list) list.push(def)
      else graph.definitions.set(key, [def])
    }
}

/**
 * PageRank over "imports" edges (an importer passes rank to what it imports), as
 * Aider ranks files for its repo map: a file many important files depend on ranks high.
 */
export function pageRank(
  files: ReadonlyMap<string, FileFacts>,
  dependencies: ReadonlyMap<string, Dependency[]>,
  iterations = 20,
  damping = 0.85,
): Map<string, number> {
  const nodes = [...files.keys()]
  const index = new Map(nodes.map((n, i) => [n, i]))
  const out: number[][] = nodes.map((n) => {
    const targets: number[] = []
    for (const d of dependencies.get(n) ?? [])
      for (const t of d.targets) {
        const i = index.get(t)
        if (i !== undefined && t !== n && !targets.includes(i)) targets.push(i)
      }
    return targets
  })
  const n = nodes.length || 1
  let rank = new Float64Array(nodes.length).fill(1 / n)
  for (let it = 0; it < iterations; it++) {
    const next = new Float64Array(nodes.length).fill((1 - damping) / n)
    let dangling = 0
    for (let i = 0; i < nodes.length; i++) {
      if (out[i].length === 0) dangling += rank[i]
      else for (const t of out[i]) next[t] += (damping * rank[i]) / out[i].length
    }
    for (let i = 0; i < nodes.length; i++) next[i] += (damping * dangling) / n
    rank = next
  }
  return new Map(nodes.map((node, i) => [node, rank[i]]))
}

export function entryPoints(
  files: ReadonlyMap<string, FileFacts>,
  dependencies: ReadonlyMap<string, Dependency[]>,
  dependents: ReadonlyMap<string, Set<string>>,
): EntryPoint[] {
  const reasons = new Map<string, string>()
  for (const [file, facts] of files) {
    for (const entry of facts.config?.entryFiles ?? []) {
      const target = path.posix.join(path.posix.dirname(file), entry)
      if (files.has(target) && !reasons.has(target)) reasons.set(target, `named in ${file}`)
    }
  }
  for (const [file, facts] of files) {
    if (reasons.has(file)) continue
    if (facts.entry)
      reasons.set(
        file,
        facts.language === 'python'
          ? 'has if __name__ == "__main__"'
          : facts.language === 'go'
            ? 'package main with func main'
            : 'defines main',
      )
  }
  const explicit = [...reasons].map(([p, reason]) => ({ path: p, reason }))
  const roots: EntryPoint[] = []
  for (const [file, deps] of dependencies) {
    if (reasons.has(file) || (dependents.get(file)?.size ?? 0) > 0) continue
    if (deps.some((d) => d.kind === 'internal' && d.targets.length > 0))
      roots.push({ path: file, reason: 'imports project files and nothing imports it' })
  }
  const byPath = (a: EntryPoint, b: EntryPoint) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
  return [...explicit.sort(byPath), ...roots.sort(byPath)]
}

/**
 * For each defined name, how many other files mention it: the reference count the
 * repo map ranks symbols by. `idents` streams every file's stored identifier string.
 */
export function referenceCounts(
  definitions: ReadonlyMap<string, Definition[]>,
  idents: Iterable<{ path: string; idents: string }>,
): Map<string, number> {
  const counts = new Map<string, number>()
  // The files defining each name, as a set: a common name (`get`, `default`) has
  // thousands of definitions in a big project, too many to scan per mention.
  const definedIn = new Map<string, Set<string>>()
  for (const { path: file, idents: text } of idents) {
    for (const name of identNames(text)) {
      const defs = definitions.get(name)
      if (!defs) continue
      let files = definedIn.get(name)
      if (!files) definedIn.set(name, (files = new Set(defs.map((d) => d.path))))
      // A file that defines the name itself mostly means its own definition.
      if (files.has(file)) continue
      counts.set(name, (counts.get(name) ?? 0) + 1)
    }
  }
  return counts
}
