import type { Sandbox } from '../sandbox/types'
import type { Definition, Dependency, EntryPoint } from './graph'
import type { FileFacts, Language } from './types'

/** The code index's public contract (implemented in code-index.ts). */

export const DEFAULT_MAX_FILES = 10_000

export interface CodeIndexOptions {
  /** The project root, realpath'd (the sandbox's root). */
  root: string
  sandbox: Sandbox
  /** Index only this folder (root-relative): for projects past `maxFiles`. */
  prefix?: string
  /** Past this many files, only the first ones (in path order) are indexed and a warning says so. */
  maxFiles?: number
  /** Parse worker threads for a cold build (default: one per core, at most 4). */
  workers?: number
}

export interface FileProblem {
  path: string
  reason: string
}

export interface BuildReport {
  /** Files in the index after the build. */
  files: number
  parsed: number
  unchanged: number
  removed: number
  /** Files indexed by metadata only (binary, too large, minified, grammar missing), first 50. */
  skipped: FileProblem[]
  /** Files with syntax errors (indexed as far as the parser got), first 50. */
  parseErrors: FileProblem[]
  /** Files that could not be read or analysed, first 50. */
  errors: FileProblem[]
  /** Grammars that failed to load, each reported once. */
  grammarErrors: string[]
  /** Set when the project has more files than `maxFiles`: for the host to show. */
  warning?: string
  seconds: number
  /** Worker threads that parsed (0: in process). */
  workers: number
}

export interface UpdateReport {
  parsed: string[]
  removed: string[]
  unchanged: string[]
  errors: FileProblem[]
}

export interface IndexStatus {
  root: string
  prefix?: string
  files: number
  bytes: number
  builtAt?: number
  languages: Partial<Record<Language, number>>
  filesWithParseErrors: number
  skippedFiles: number
  grammarErrors: string[]
  warning?: string
}

export interface Reference {
  path: string
  line: number
}

export interface RankedSymbol extends Definition {
  /** Other files that mention the name. */
  references: number
  score: number
}

export interface CodeIndex {
  readonly root: string
  build(opts?: { signal?: AbortSignal }): Promise<BuildReport>
  update(paths: readonly string[]): Promise<UpdateReport>
  status(): IndexStatus
  /** The facts of one indexed file (root-relative POSIX path). */
  file(path: string): FileFacts | undefined
  /** Indexed paths, sorted; under `prefix` (a folder) when given. */
  paths(prefix?: string): string[]
  definitions(symbol: string): Definition[]
  references(symbol: string, limit: number): { references: Reference[]; truncated: boolean }
  dependencies(path: string): Dependency[]
  dependents(path: string): string[]
  hubs(limit: number): Array<{ path: string; dependents: number }>
  entryPoints(): EntryPoint[]
  /** The file graph for a repo map: files with PageRank, import edges, reference counts by name. */
  graph(): {
    files: Array<{ path: string; language: Language; rank: number; dependents: number }>
    edges: Array<{ from: string; to: string }>
    referenceCounts: Map<string, number>
  }
  /** Definitions ranked by references from other files, weighted by their file's PageRank. */
  rankedSymbols(limit: number): RankedSymbol[]
  /** Called after every build or update that changed something. */
  onChange(listener: (changed: readonly string[]) => void): () => void
}
