import fs from 'node:fs'
import path from 'node:path'
import type { SqliteDatabase } from '../store/sqlite'
import { EXTRACTOR_VERSION } from './analyze'
import {
  buildGraph,
  entryPoints,
  pageRank,
  patchGraph,
  referenceCounts,
  type EntryPoint,
  type Graph,
} from './graph'
import { identLines } from './idents'
import { compare, filterIdents, patchable, push, rankSymbols, storedProblems, toRel } from './index-helpers'
import { createIndexStore, type StoredStat } from '../store/code-index-tables'
import { sharedRun } from './shared-run'
import { checkStored, coverageAfter, nothingChanged, saveRows, yieldToLoop } from './build-steps'
import { createCheckStateCache } from './checkState'
import { defaultWorkerCount, processAll } from './pool'
import type { FileJob, FileOutcome } from './process-file'
import type { BuildProgress, BuildReport, CodeIndex, CodeIndexOptions, Reference, UpdateReport } from './api'
import type { FileFacts, Language } from './types'
import { pushAll } from '../../shared/arrays'

/*
 * The code index (docs/index.md): every file the sandbox lists (so .gitignore and
 * the denylist apply), parsed once per content hash and stored in SQLite. A new
 * process loads only the stored paths (from an SQL index, in milliseconds); a
 * file's facts are parsed on first use, all of them only when a query needs the
 * whole graph, and sizes and mtimes are read page by page as a build checks them. build() brings it up to date with the disk; update()
 * re-reads named files (the watcher's saves).
 */

export * from './api'

/** Parsed facts a build keeps in memory beyond those already there (applyOutcomes). */
const FACTS_KEPT_BY_A_BUILD = 5000

export function createCodeIndex(db: SqliteDatabase, opts: CodeIndexOptions): CodeIndex {
  const root = opts.root
  const prefix = opts.prefix?.replace(/^\.\/|\/+$/g, '') || undefined
  const store = createIndexStore(db, prefix ? `${root}//${prefix}` : root)
  /** Every indexed file (the stored state until a build has checked it against the disk). */
  const indexed = new Set<string>()
  /** The facts parsed so far: a subset of `indexed`, all of it once `allFacts()` ran. */
  const facts = new Map<string, FileFacts>()
  let loaded = false
  /** The last build covered the whole project (a stopped one did not). */
  let complete = false
  const grammarErrors = new Set<string>()
  const listeners = new Set<(changed: readonly string[]) => void>()
  let warning: string | undefined
  let builtAt: number | undefined
  let derived: Graph | undefined
  let refCounts: Map<string, number> | undefined
  let ranks: Map<string, number> | undefined
  let entries: EntryPoint[] | undefined
  let queue: Promise<unknown> = Promise.resolve()

  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn)
    queue = run.catch(() => undefined)
    return run
  }
  /** After a change: `patched` when the graph was already brought up to date file by file. */
  const invalidate = (changed: readonly string[], patched = false) => {
    if (changed.length === 0) return
    if (!patched) derived = undefined
    refCounts = undefined
    ranks = undefined
    entries = undefined
    for (const l of listeners) l(changed)
  }
  let metaRead = false
  /** Whether the last build finished, read once per process: one row, no paths. */
  const readMeta = () => {
    if (metaRead) return
    metaRead = true
    const meta = store.meta()
    complete = meta !== undefined && meta.builtAt > 0 && meta.warning === null
  }
  const checkState = createCheckStateCache(opts.stateFile, root, () => store.generation())
  /** The stored state, read once per process: its paths only, so a big index loads in milliseconds. */
  const ensureLoaded = () => {
    if (loaded) return
    loaded = true
    readMeta()
    const saved = checkState.load()?.filter((r) => r.version === EXTRACTOR_VERSION)
    for (const p of saved?.map((r) => r.path) ?? store.paths(EXTRACTOR_VERSION)) indexed.add(p)
  }
  const factsOf = (rel: string): FileFacts | undefined => {
    ensureLoaded()
    if (!indexed.has(rel)) return undefined
    let f = facts.get(rel)
    if (!f) {
      const json = store.facts(rel, EXTRACTOR_VERSION)
      if (json === undefined) return undefined
      facts.set(rel, (f = JSON.parse(json) as FileFacts))
    }
    return f
  }
  /** Every file's facts, parsed where memory lacks them: what the graph and ranks are made of. */
  const allFacts = (): ReadonlyMap<string, FileFacts> => {
    ensureLoaded()
    if (facts.size < indexed.size)
      for (const { path: rel, facts: json } of store.allFacts(EXTRACTOR_VERSION))
        if (indexed.has(rel) && !facts.has(rel)) facts.set(rel, JSON.parse(json) as FileFacts)
    return facts
  }
  const graph = (): Graph => (derived ??= buildGraph(allFacts()))
  const rankOf = () => (ranks ??= pageRank(allFacts(), graph().dependencies))
  const inScope = (rel: string) => !prefix || rel === prefix || rel.startsWith(prefix + '/')

  /**
   * Applies outcomes to SQLite and memory; returns the paths whose facts changed. A build
   * (`problems` given) keeps a parsed file's facts in memory only while few are: a cold build
   * of a 72,000-file tree held them all (~150 MB of the session's heap) for queries that
   * read them again from SQLite anyway in any later process (factsOf, allFacts).
   */
  const applyOutcomes = (outcomes: readonly FileOutcome[], problems?: BuildReport): string[] => {
    const parsed = store.apply(outcomes, EXTRACTOR_VERSION)
    const changed: string[] = []
    for (const o of outcomes) {
      if (o.status === 'parsed') {
        const f = parsed.get(o.rel)!
        if (!problems || facts.size < FACTS_KEPT_BY_A_BUILD || facts.has(o.rel)) facts.set(o.rel, f)
        indexed.add(o.rel)
        changed.push(o.rel)
        const grammarError = /^not parsed: (the \w+ grammar failed to load.*)$/.exec(f.note ?? '')?.[1]
        if (grammarError) grammarErrors.add(grammarError)
        if (problems) {
          if (f.kind === 'skipped' || f.kind === 'binary')
            push(problems.skipped, { path: o.rel, reason: f.note ?? 'binary file: metadata only' })
          if (f.parseErrors > 0)
            push(problems.parseErrors, { path: o.rel, reason: `${f.parseErrors} syntax error(s)` })
        }
      } else if (o.status === 'gone') {
        facts.delete(o.rel)
        if (indexed.delete(o.rel)) changed.push(o.rel)
      } else if (o.status === 'error') {
        if (problems) push(problems.errors, { path: o.rel, reason: o.error })
      }
    }
    return changed
  }

  type Given = Pick<NonNullable<Parameters<CodeIndex['build']>[0]>, 'listing'>
  const build = async (
    signal: AbortSignal,
    report: (p: BuildProgress) => void,
    given: Given,
  ): Promise<BuildReport> => {
    const started = performance.now()
    report({ phase: 'listing', done: 0, total: 0 })
    // A session starts its build beside its baseline: let the baseline's stats get going
    // before loading 70,000 paths takes this thread.
    await yieldToLoop()
    const vouched = prefix ? undefined : await given.listing?.()
    // The files are as they were when a finished check last found this index true of them.
    const tree = vouched?.unchangedSince
    if (tree && complete && checkState.checkedAgainst(tree)) {
      const files = store.meta()?.fileCount ?? 0
      report({ phase: 'done', done: files, total: vouched!.paths.length })
      return nothingChanged(started, files, false)
    }
    // Rows saved at this generation are the stored ones: with them, the paths are loaded
    // only if the check finds something to change (a session on an unchanged tree never does).
    const saved = checkState.take()
    if (!saved) ensureLoaded()
    const listed = vouched?.paths ?? (await opts.sandbox.listFiles({ prefix, signal })).files
    const fileCount = () =>
      loaded ? indexed.size : (saved?.filter((r) => r.version === EXTRACTOR_VERSION).length ?? 0)
    // A listing cut short is not the project: taken as such, it would drop every stored file.
    if (signal.aborted) return nothingChanged(started, fileCount(), true)
    const before = { complete, warning }
    warning = undefined
    report({ phase: 'indexing', done: 0, total: listed.length })
    const isCurrent = (row: StoredStat) =>
      row.version === EXTRACTOR_VERSION && (saved !== undefined || indexed.has(row.path))
    const readAt = store.generation()
    const check = await checkStored({ root, listed, stats: vouched?.stats, store, saved, isCurrent, signal })
    const { jobs, gone } = check
    if (jobs.length > 0 || gone.length > 0) ensureLoaded()
    let done = check.unchanged
    store.remove(gone)
    for (const p of gone) {
      indexed.delete(p)
      facts.delete(p)
    }
    const unchangedByStat = done
    report({ phase: 'indexing', done, total: listed.length })
    const result: BuildReport = {
      ...nothingChanged(started, 0, false),
      unchanged: unchangedByStat,
      removed: gone.length,
    }
    const changed: string[] = [...gone]
    const { workersUsed } = await processAll(jobs, {
      workers: opts.workers ?? defaultWorkerCount(),
      nice: opts.workerNice,
      signal,
      onResults: (batch) => {
        for (const o of batch) if (o.status === 'parsed') result.parsed++
        result.unchanged += batch.filter((o) => o.status === 'unchanged' || o.status === 'touched').length
        pushAll(changed, applyOutcomes(batch, result))
        done += batch.length
        report({ phase: 'indexing', done, total: listed.length })
      },
    })
    // Problems of unchanged files come from their stored rows, so a rebuild reports them
    // too (not after a stop, which must end the build at once).
    if (!signal.aborted && result.parsed < listed.length)
      storedProblems(store.problems(EXTRACTOR_VERSION), listed, new Set(changed), result, factsOf)
    result.aborted = signal.aborted
    const coverage = coverageAfter(result.aborted, check.fresh, listed, indexed, before)
    complete = coverage.complete
    warning = coverage.warning
    builtAt = Date.now()
    result.files = fileCount()
    store.setMeta({ builtAt, fileCount: result.files, warning: warning ?? null })
    result.grammarErrors = [...grammarErrors]
    result.warning = warning
    result.workers = workersUsed
    result.seconds = (performance.now() - started) / 1000
    report({ phase: 'done', done, total: listed.length })
    invalidate(changed)
    // For the next process's check: the rows as they are now, read again after changes; the
    // rows the check read and left unchanged are saved as read; saved ones still true stay,
    // unless this finished whole check can name the tree it found them true of.
    const checked = !result.aborted && complete ? tree : undefined
    if (!result.aborted && (jobs.length > 0 || gone.length > 0))
      await saveRows(checkState, store, signal, checked)
    else if (!result.aborted && (!saved || checked)) checkState.save(check.rows, readAt, checked)
    return result
  }

  const builds = sharedRun<BuildProgress, BuildReport, Given>(
    (signal, publish, given) => serial(() => build(signal, publish, given)),
    (p) => p.phase === 'done',
  )

  const update = async (paths: readonly string[]): Promise<UpdateReport> => {
    const report: UpdateReport = { parsed: [], removed: [], unchanged: [], errors: [] }
    const jobs: FileJob[] = []
    const removed: string[] = []
    for (const input of new Set(paths)) {
      const rel = toRel(root, input)
      if (rel === undefined || rel === '' || !inScope(rel)) continue
      ensureLoaded()
      const under = [...indexed].filter((p) => p.startsWith(rel + '/'))
      let isFile: boolean
      try {
        isFile = fs.lstatSync(path.join(root, rel)).isFile()
      } catch {
        isFile = false
      }
      if (!isFile || opts.sandbox.isIgnored(rel)) {
        // Deleted, ignored, or a directory that went away: drop what the index had there.
        for (const p of indexed.has(rel) ? [rel, ...under] : under) removed.push(p)
        continue
      }
      jobs.push({ rel, abs: path.join(root, rel), known: store.known(rel), force: true })
    }
    store.remove(removed)
    for (const p of removed) {
      indexed.delete(p)
      facts.delete(p)
    }
    report.removed = removed
    const outcomes: FileOutcome[] = []
    await processAll(jobs, {
      workers: opts.workers ?? defaultWorkerCount(),
      onResults: (b) => pushAll(outcomes, b),
    })
    const before = new Map(outcomes.map((o) => [o.rel, facts.get(o.rel)]))
    const changed = [...removed, ...applyOutcomes(outcomes)]
    const patched =
      removed.length === 0 &&
      derived !== undefined &&
      changed.every((p) => patchable(before.get(p), facts.get(p)))
    if (patched) for (const p of changed) patchGraph(derived!, p, before.get(p)!, facts.get(p)!)
    for (const o of outcomes) {
      if (o.status === 'parsed') report.parsed.push(o.rel)
      else if (o.status === 'gone') report.removed.push(o.rel)
      else if (o.status === 'error') report.errors.push({ path: o.rel, reason: o.error })
      else report.unchanged.push(o.rel)
    }
    if (changed.length > 0) {
      builtAt = Date.now()
      store.setMeta({ builtAt, fileCount: indexed.size, warning: warning ?? null })
    }
    invalidate(changed, patched)
    return report
  }

  const counts = () =>
    (refCounts ??= referenceCounts(graph().definitions, filterIdents(store.allIdents(), indexed)))

  return {
    root,
    build: (o) => builds.start(o),
    update: (p) => serial(() => update(p)),
    status() {
      const languages: Partial<Record<Language, number>> = {}
      let bytes = 0
      let withErrors = 0
      let skipped = 0
      ensureLoaded()
      for (const row of store.summary(EXTRACTOR_VERSION)) {
        languages[row.language] = row.files
        bytes += row.bytes
        withErrors += row.withErrors
        skipped += row.skipped
      }
      return {
        root,
        ...(prefix ? { prefix } : {}),
        files: indexed.size,
        bytes,
        builtAt: builtAt ?? store.meta()?.builtAt,
        languages,
        filesWithParseErrors: withErrors,
        skippedFiles: skipped,
        grammarErrors: [...grammarErrors],
        ...(warning ? { warning } : {}),
        ...(builds.progress() ? { building: { ...builds.progress()! } } : {}),
      }
    },
    building: () => {
      const p = builds.progress()
      return p ? { ...p } : undefined
    },
    complete: () => (readMeta(), complete),
    memo(key, make) {
      const generation = store.generation()
      const kept = store.memo(key, generation)
      if (kept !== undefined) return kept
      const value = make()
      // Made from what another process changed meanwhile? Then it is not kept.
      if (store.generation() === generation) store.setMemo(key, generation, value)
      return value
    },
    file: factsOf,
    paths(under) {
      ensureLoaded()
      const dir = under?.replace(/^\.\/|\/+$/g, '')
      const all = [...indexed].filter((p) => !dir || dir === '.' || p === dir || p.startsWith(dir + '/'))
      return all.sort()
    },
    definitions(symbol) {
      const defs = graph().definitions.get(symbol) ?? []
      return [...defs].sort(
        (a, b) => Number(b.exported) - Number(a.exported) || compare(a.path, b.path) || a.line - b.line,
      )
    },
    references(symbol, limit) {
      const name = symbol.includes('.') ? symbol.slice(symbol.lastIndexOf('.') + 1) : symbol
      const defLines = new Set((graph().definitions.get(symbol) ?? []).map((d) => `${d.path}:${d.line}`))
      const out: Reference[] = []
      let truncated = false
      for (const row of store.filesWithIdent(name)) {
        if (!indexed.has(row.path)) continue
        for (const line of identLines(row.idents, name)) {
          if (defLines.has(`${row.path}:${line}`)) continue
          if (out.length >= limit) {
            truncated = true
            break
          }
          out.push({ path: row.path, line })
        }
        if (truncated) break
      }
      return { references: out, truncated }
    },
    dependencies: (p) => graph().dependencies.get(p) ?? [],
    dependents: (p) => [...(graph().dependents.get(p) ?? [])].sort(),
    hubs(limit) {
      return [...graph().dependents]
        .map(([p, set]) => ({ path: p, dependents: set.size }))
        .sort((a, b) => b.dependents - a.dependents || compare(a.path, b.path))
        .slice(0, limit)
    },
    entryPoints: () => (entries ??= entryPoints(allFacts(), graph().dependencies, graph().dependents)),
    graph() {
      const g = graph()
      const edges: Array<{ from: string; to: string }> = []
      for (const [from, deps] of g.dependencies)
        for (const to of new Set(deps.flatMap((d) => d.targets))) if (to !== from) edges.push({ from, to })
      return {
        files: [...allFacts()].map(([p, f]) => ({
          path: p,
          language: f.language,
          rank: rankOf().get(p) ?? 0,
          dependents: g.dependents.get(p)?.size ?? 0,
        })),
        edges,
        referenceCounts: counts(),
      }
    },
    rankedSymbols: (limit) => rankSymbols(graph().definitions, counts(), rankOf(), indexed.size, limit),
    onChange(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}
