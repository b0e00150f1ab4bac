import type { Sandbox } from '../containment/types'
import type { Definition, Dependency, EntryPoint } from './graph'
import type { FileFacts, Language } from './types'

/** The code index's public contract (implemented in code-index.ts). */

export interface CodeIndexOptions {
  /** The project root, realpath'd (the sandbox's root). */
  root: string
  sandbox: Sandbox
  /** Index only this folder (root-relative). */
  prefix?: string
  /**
   * Parse worker threads for a cold build; 1 parses in process. Default: one per core, at most 4,
   * and one core fewer for a background build (`workerNice` above 0), left to the agent loop.
   */
  workers?: number
  /**
   * Nice value of the parse threads on Linux. Default 10: a build runs behind the
   * agent loop, which keeps the cores when both want them. 0 for a build someone
   * waits on (`stepwise index`).
   */
  workerNice?: number
  /**
   * Where the index keeps a flat copy of what a build's check reads (checkState.ts),
   * so the next process need not read it from SQLite; none when not given.
   */
  stateFile?: string
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
  /** Something the host should show about the build. */
  warning?: string
  /** True when the build was stopped (its signal) before it covered every file. */
  aborted: boolean
  seconds: number
  /** Worker threads that parsed (0: in process). */
  workers: number
}

/** How far a build has got, for a progress bar; `done` counts files checked, parsed or not. */
export interface BuildProgress {
  phase: 'listing' | 'loading' | 'indexing' | 'done'
  done: number
  total: number
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
  /** Set while a build runs: the index holds only part of the project so far. */
  building?: BuildProgress
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
  /**
   * Brings the index up to date with the disk. A call while a build runs joins it;
   * the build stops early only when every caller's signal has aborted. What is
   * indexed so far is queryable (and stored) while it runs.
   */
  build(opts?: {
    signal?: AbortSignal
    onProgress?: (progress: BuildProgress) => void
    /**
     * The project's files, vouched for by the caller — a session's baseline has just
     * checked its listing against the tree — so the build need not list again;
     * undefined from it: the build lists.
     */
    listing?: () => Promise<VouchedListing | undefined>
  }): Promise<BuildReport>
  update(paths: readonly string[]): Promise<UpdateReport>
  status(): IndexStatus
  /** The build under way and how far it got; undefined when none runs. */
  building(): BuildProgress | undefined
  /**
   * True when the last finished build covered the whole project (possibly in an
   * earlier process): while a new build checks it against the disk, what is
   * indexed is the whole project as last seen, not a part of it.
   */
  complete(): boolean
  /**
   * A text made from the whole index (the repo map), kept in the store with the
   * index generation it was made from and made again only once the index changed:
   * a new process on an unchanged project reuses it without loading any facts.
   */
  memo(key: string, make: () => string): string
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

/** The project's files as a caller vouches for them (CodeIndex.build's `listing`). */
export interface VouchedListing {
  /** As the sandbox lists them, sorted. */
  paths: readonly string[]
  /** Their stats as the caller just took them (statFiles.ts: STAT_FIELDS per path), if it did. */
  stats?: Float64Array
  /**
   * Set when the caller found every one of them as an earlier snapshot left them
   * (Snapshotter.unchangedSince): a finished index last checked against the same
   * value has nothing to check.
   */
  unchangedSince?: string
}
