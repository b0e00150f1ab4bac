import type { CodeIndexTables, RowChange, StoredStat } from '../store/code-index-tables'
import { EXTRACTOR_VERSION } from './analyze'
import type { FileOutcome } from './process-file'
import type { FileFacts, Language } from './types'

/*
 * What the code index knows (code-index.ts): which files are indexed, the facts
 * parsed so far, and whether the last build covered the whole project. Memory
 * follows the stored rows: the paths are read once per process (from an SQL index
 * or the check state, in milliseconds), a file's facts on first use, all of them
 * only when the whole graph is needed.
 */

export type IndexTables = CodeIndexTables<Language>

/** Parsed facts a build keeps in memory beyond those already there (`apply`). */
const FACTS_KEPT_BY_A_BUILD = 5000

/** What the last build or update left: read by the status and the next build. */
export interface Coverage {
  /** The last build covered the whole project (a stopped one did not). */
  complete: boolean
  warning?: string
  builtAt?: number
}

export interface IndexState {
  readonly tables: IndexTables
  /** Every indexed file (the stored state until a build has checked it against the disk). */
  readonly indexed: ReadonlySet<string>
  readonly coverage: Coverage
  /** Grammars that failed to load, as the files' notes said. */
  readonly grammarErrors: ReadonlySet<string>
  /** Whether the paths were read (`ensureLoaded`). */
  loaded(): boolean
  /** Reads the stored paths, once per process. */
  ensureLoaded(): void
  /** Reads whether the last build finished, once per process: one row, no paths. */
  readMeta(): void
  factsOf(rel: string): FileFacts | undefined
  /** Every file's facts, parsed where memory lacks them: what the graph and ranks are made of. */
  allFacts(): ReadonlyMap<string, FileFacts>
  /** The facts in memory (undefined for one not parsed yet or not indexed). */
  known(rel: string): FileFacts | undefined
  /**
   * Writes outcomes to the tables and memory; returns the paths whose facts changed and the
   * parsed facts. `fewInMemory` (a build): a parsed file's facts stay in memory only while
   * few are — a cold build of a 72,000-file tree held them all (~150 MB of the session's
   * heap) for queries that read them again from SQLite anyway in any later process.
   */
  apply(
    outcomes: readonly FileOutcome[],
    fewInMemory: boolean,
  ): { changed: string[]; parsed: Map<string, FileFacts> }
  /** Drops files from the tables and memory. */
  remove(paths: readonly string[]): void
  /** Records a finished build or update in the root's row. */
  saveMeta(fileCount: number): void
}

/**
 * A file's facts as the extractor stored them (JSON of a FileFacts, read at EXTRACTOR_VERSION only).
 */
function parseFacts(json: string): FileFacts {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- written by this version's extractor from a FileFacts (rows of other versions are never read); read per file, a schema parse would cost the index's warm start on a big tree
  return JSON.parse(json) as FileFacts
}

/** The facts of indexed files, read from the tables once each and kept in `facts`. */
function factsReader(
  tables: IndexTables,
  indexed: ReadonlySet<string>,
  facts: Map<string, FileFacts>,
  ensureLoaded: () => void,
) {
  const factsOf = (rel: string): FileFacts | undefined => {
    ensureLoaded()
    if (!indexed.has(rel)) return undefined
    let f = facts.get(rel)
    if (!f) {
      const json = tables.facts(rel, EXTRACTOR_VERSION)
      if (json === undefined) return undefined
      facts.set(rel, (f = parseFacts(json)))
    }
    return f
  }
  const allFacts = (): ReadonlyMap<string, FileFacts> => {
    ensureLoaded()
    if (facts.size < indexed.size)
      for (const { path: rel, facts: json } of tables.allFacts(EXTRACTOR_VERSION))
        if (indexed.has(rel) && !facts.has(rel)) facts.set(rel, parseFacts(json))
    return facts
  }
  return { factsOf, allFacts }
}

/** `saved`: the rows a check state file holds, when there is one (checkState.ts). */
export function createIndexState(
  tables: IndexTables,
  saved: () => readonly StoredStat[] | undefined,
): IndexState {
  const indexed = new Set<string>()
  const facts = new Map<string, FileFacts>()
  const grammarErrors = new Set<string>()
  const coverage: Coverage = { complete: false }
  let loaded = false
  let metaRead = false

  const readMeta = () => {
    if (metaRead) return
    metaRead = true
    const meta = tables.meta()
    coverage.complete = meta !== undefined && meta.builtAt > 0 && meta.warning === null
  }
  const ensureLoaded = () => {
    if (loaded) return
    loaded = true
    readMeta()
    const rows = saved()?.filter((r) => r.version === EXTRACTOR_VERSION)
    for (const p of rows?.map((r) => r.path) ?? tables.paths(EXTRACTOR_VERSION)) indexed.add(p)
  }
  const { factsOf, allFacts } = factsReader(tables, indexed, facts, ensureLoaded)
  const apply = (outcomes: readonly FileOutcome[], fewInMemory: boolean) => {
    const { changes, parsed } = rowChanges(outcomes)
    tables.write(changes)
    const changed: string[] = []
    for (const o of outcomes) {
      if (o.status === 'parsed') {
        const f = parsed.get(o.rel)!
        if (!fewInMemory || facts.size < FACTS_KEPT_BY_A_BUILD || facts.has(o.rel)) facts.set(o.rel, f)
        indexed.add(o.rel)
        changed.push(o.rel)
        const grammarError = /^not parsed: (the \w+ grammar failed to load.*)$/.exec(f.note ?? '')?.[1]
        if (grammarError) grammarErrors.add(grammarError)
      } else if (o.status === 'gone') {
        facts.delete(o.rel)
        if (indexed.delete(o.rel)) changed.push(o.rel)
      }
    }
    return { changed, parsed }
  }
  const remove = (paths: readonly string[]) => {
    tables.remove(paths)
    for (const p of paths) {
      indexed.delete(p)
      facts.delete(p)
    }
  }
  const saveMeta = (fileCount: number) => {
    coverage.builtAt = Date.now()
    tables.setMeta({ builtAt: coverage.builtAt, fileCount, warning: coverage.warning ?? null })
  }
  return {
    tables,
    indexed,
    coverage,
    grammarErrors,
    loaded: () => loaded,
    ensureLoaded,
    readMeta,
    factsOf,
    allFacts,
    known: (rel) => facts.get(rel),
    apply,
    remove,
    saveMeta,
  }
}

/** The rows a batch of outcomes writes, and the facts of the parsed files. */
function rowChanges(outcomes: readonly FileOutcome[]): {
  changes: RowChange<Language>[]
  parsed: Map<string, FileFacts>
} {
  const parsed = new Map<string, FileFacts>()
  const changes: RowChange<Language>[] = []
  for (const o of outcomes) {
    if (o.status === 'parsed') {
      const f = parseFacts(o.facts)
      parsed.set(o.rel, f)
      changes.push({
        op: 'parsed',
        row: {
          path: o.rel,
          hash: o.hash,
          size: o.size,
          mtimeMs: o.mtimeMs,
          version: EXTRACTOR_VERSION,
          language: f.language,
          kind: f.kind,
          parseErrors: f.parseErrors,
          facts: o.facts,
          idents: o.idents,
        },
      })
    } else if (o.status === 'touched')
      changes.push({ op: 'touched', path: o.rel, size: o.size, mtimeMs: o.mtimeMs })
    else if (o.status === 'gone') changes.push({ op: 'gone', path: o.rel })
  }
  return { changes, parsed }
}
