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
  type Definition,
  type EntryPoint,
  type Graph,
} from './graph'
import { identLines } from './idents'
import { createIndexStore, type StoredRow } from './index-store'
import { sharedRun } from './shared-run'
import { sliceTimer, statMatches, stoppedBeforeListing, yieldToLoop } from './build-steps'
import { defaultWorkerCount, processAll } from './pool'
import type { FileJob, FileOutcome } from './process-file'
import {
  type BuildProgress,
  type BuildReport,
  type CodeIndex,
  type CodeIndexOptions,
  type FileProblem,
  type RankedSymbol,
  type Reference,
  type UpdateReport,
} from './api'
import type { FileFacts, Language } from './types'

/*
 * The code index (docs/index.md): every file the sandbox lists (so .gitignore and
 * the denylist apply), parsed once per content hash, stored in SQLite and held
 * in memory for the code tools. build() brings it up to date with the disk;
 * update() re-reads named files (the watcher's saves).
 */

export * from './api'

/** Problems listed per kind in a build report; the status counts all of them. */
const MAX_REPORTED = 50
/** Stored rows read per query while loading. */
const PAGE = 250
export function createCodeIndex(db: SqliteDatabase, opts: CodeIndexOptions): CodeIndex {
  const root = opts.root
  const prefix = opts.prefix?.replace(/^\.\/|\/+$/g, '') || undefined
  const store = createIndexStore(db, prefix ? `${root}//${prefix}` : root)
  const facts = new Map<string, FileFacts>()
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
  const graph = (): Graph => (derived ??= buildGraph(facts))
  const rankOf = () => (ranks ??= pageRank(facts, graph().dependencies))
  const inScope = (rel: string) => !prefix || rel === prefix || rel.startsWith(prefix + '/')

  /** Applies outcomes to SQLite and memory; returns the paths whose facts changed. */
  const applyOutcomes = (outcomes: readonly FileOutcome[], problems?: BuildReport): string[] => {
    const parsed = store.apply(outcomes, EXTRACTOR_VERSION)
    const changed: string[] = []
    for (const o of outcomes) {
      if (o.status === 'parsed') {
        const f = parsed.get(o.rel)!
        facts.set(o.rel, f)
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
        if (facts.delete(o.rel)) changed.push(o.rel)
      } else if (o.status === 'error') {
        if (problems) push(problems.errors, { path: o.rel, reason: o.error })
      }
    }
    return changed
  }

  const build = async (signal: AbortSignal, report: (p: BuildProgress) => void): Promise<BuildReport> => {
    const started = performance.now()
    report({ phase: 'listing', done: 0, total: 0 })
    const listing = await opts.sandbox.listFiles({ prefix, signal })
    // A listing cut short is not the project: taken as such, it would drop every stored file.
    if (signal.aborted) return stoppedBeforeListing(started, facts.size)
    const listed = listing.files
    warning = undefined
    const keep = new Set(listed)
    // Stored rows come in slices (a big project has tens of thousands), their
    // facts parsed only where memory lacks them.
    const stored = new Map<string, StoredRow>()
    report({ phase: 'loading', done: 0, total: listed.length })
    const slice = sliceTimer()
    for (let after = ''; ;) {
      const page = store.loadPage(after, PAGE)
      for (const row of page) {
        stored.set(row.path, row)
        if (keep.has(row.path) && row.version === EXTRACTOR_VERSION && !facts.has(row.path))
          facts.set(row.path, JSON.parse(row.facts) as FileFacts)
      }
      if (page.length < PAGE || signal.aborted) break
      after = page[page.length - 1].path
      if (slice.due()) {
        await yieldToLoop()
        slice.next()
      }
    }
    const gone = [...stored.keys()].filter((p) => !keep.has(p))
    store.remove(gone)
    for (const p of [...facts.keys()]) if (!keep.has(p)) facts.delete(p)
    // Files whose size and mtime match what is stored are settled here, a stat
    // each: the workers only start for files that changed.
    const jobs: FileJob[] = []
    let done = 0
    for (const rel of listed) {
      const abs = path.join(root, rel)
      const known = stored.get(rel)
      if (known && known.version === EXTRACTOR_VERSION && facts.has(rel) && statMatches(abs, known)) done++
      else jobs.push({ rel, abs, known })
      if (slice.due()) {
        report({ phase: 'indexing', done, total: listed.length })
        await yieldToLoop()
        slice.next()
        if (signal.aborted) break
      }
    }
    const unchangedByStat = done
    report({ phase: 'indexing', done, total: listed.length })
    const result: BuildReport = {
      files: 0,
      parsed: 0,
      unchanged: unchangedByStat,
      removed: gone.length,
      skipped: [],
      parseErrors: [],
      errors: [],
      grammarErrors: [],
      aborted: false,
      seconds: 0,
      workers: 0,
    }
    const changed: string[] = [...gone]
    const { workersUsed } = await processAll(jobs, {
      workers: opts.workers ?? defaultWorkerCount(),
      nice: opts.workerNice,
      signal,
      onResults: (batch) => {
        for (const o of batch) if (o.status === 'parsed') result.parsed++
        result.unchanged += batch.filter((o) => o.status === 'unchanged' || o.status === 'touched').length
        changed.push(...applyOutcomes(batch, result))
        done += batch.length
        report({ phase: 'indexing', done, total: listed.length })
      },
    })
    // Problems of unchanged files come from their stored facts, so a rebuild reports them too.
    const changedSet = new Set(changed)
    for (const rel of listed) {
      const f = facts.get(rel)
      if (!f || result.parsed === listed.length) continue
      if (stored.get(rel)?.version === EXTRACTOR_VERSION && !changedSet.has(rel)) {
        if (f.kind === 'skipped' || f.kind === 'binary')
          push(result.skipped, { path: rel, reason: f.note ?? 'binary file: metadata only' })
        if (f.parseErrors > 0)
          push(result.parseErrors, { path: rel, reason: `${f.parseErrors} syntax error(s)` })
      }
    }
    result.aborted = signal.aborted
    if (result.aborted)
      warning = `The code index covers ${done} of ${listed.length} files: its build was stopped; the next one continues it.`
    builtAt = Date.now()
    store.setMeta({ builtAt, fileCount: facts.size, warning: warning ?? null })
    result.files = facts.size
    result.grammarErrors = [...grammarErrors]
    result.warning = warning
    result.workers = workersUsed
    result.seconds = (performance.now() - started) / 1000
    report({ phase: 'done', done, total: listed.length })
    invalidate(changed)
    return result
  }

  const builds = sharedRun<BuildProgress, BuildReport>(
    (signal, publish) => serial(() => build(signal, publish)),
    (p) => p.phase === 'done',
  )

  const update = async (paths: readonly string[]): Promise<UpdateReport> => {
    const report: UpdateReport = { parsed: [], removed: [], unchanged: [], errors: [] }
    const jobs: FileJob[] = []
    const removed: string[] = []
    for (const input of new Set(paths)) {
      const rel = toRel(root, input)
      if (rel === undefined || rel === '' || !inScope(rel)) continue
      const under = [...facts.keys()].filter((p) => p.startsWith(rel + '/'))
      let isFile: boolean
      try {
        isFile = fs.lstatSync(path.join(root, rel)).isFile()
      } catch {
        isFile = false
      }
      if (!isFile || opts.sandbox.isIgnored(rel)) {
        // Deleted, ignored, or a directory that went away: drop what the index had there.
        for (const p of facts.has(rel) ? [rel, ...under] : under) removed.push(p)
        continue
      }
      jobs.push({ rel, abs: path.join(root, rel), known: store.known(rel), force: true })
    }
    store.remove(removed)
    for (const p of removed) facts.delete(p)
    report.removed = removed
    const outcomes: FileOutcome[] = []
    await processAll(jobs, {
      workers: opts.workers ?? defaultWorkerCount(),
      onResults: (b) => outcomes.push(...b),
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
      store.setMeta({ builtAt, fileCount: facts.size, warning: warning ?? null })
    }
    invalidate(changed, patched)
    return report
  }

  const counts = () =>
    (refCounts ??= referenceCounts(graph().definitions, filterIdents(store.allIdents(), facts)))

  return {
    root,
    build: (o) => builds.start(o),
    update: (p) => serial(() => update(p)),
    status() {
      const languages: Partial<Record<Language, number>> = {}
      let bytes = 0
      let withErrors = 0
      let skipped = 0
      for (const f of facts.values()) {
        languages[f.language] = (languages[f.language] ?? 0) + 1
        bytes += f.size
        if (f.parseErrors > 0) withErrors++
        if (f.kind === 'skipped' || f.kind === 'binary') skipped++
      }
      return {
        root,
        ...(prefix ? { prefix } : {}),
        files: facts.size,
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
    file: (p) => facts.get(p),
    paths(under) {
      const dir = under?.replace(/^\.\/|\/+$/g, '')
      const all = [...facts.keys()].filter((p) => !dir || dir === '.' || p === dir || p.startsWith(dir + '/'))
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
        if (!facts.has(row.path)) continue
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
    entryPoints: () => (entries ??= entryPoints(facts, graph().dependencies, graph().dependents)),
    graph() {
      const g = graph()
      const edges: Array<{ from: string; to: string }> = []
      for (const [from, deps] of g.dependencies)
        for (const to of new Set(deps.flatMap((d) => d.targets))) if (to !== from) edges.push({ from, to })
      return {
        files: [...facts].map(([p, f]) => ({
          path: p,
          language: f.language,
          rank: rankOf().get(p) ?? 0,
          dependents: g.dependents.get(p)?.size ?? 0,
        })),
        edges,
        referenceCounts: counts(),
      }
    },
    rankedSymbols(limit) {
      const g = graph()
      const refs = counts()
      const rank = rankOf()
      const n = facts.size || 1
      const seen = new Set<Definition>()
      const ranked: RankedSymbol[] = []
      for (const defs of g.definitions.values()) {
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
    },
    onChange(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}

/**
 * A changed file can be patched into the graph when it existed before and its
 * change cannot move other files' imports: not a config file (tsconfig,
 * package.json, go.mod), not a Java file whose package changed.
 */
function patchable(before: FileFacts | undefined, after: FileFacts | undefined): boolean {
  if (!before || !after) return false
  if (before.kind === 'config' || after.kind === 'config') return false
  return before.package === after.package
}

function* filterIdents(
  rows: Iterable<{ path: string; idents: string }>,
  facts: ReadonlyMap<string, FileFacts>,
): Generator<{ path: string; idents: string }> {
  for (const row of rows) if (facts.has(row.path)) yield row
}

function push(list: FileProblem[], item: FileProblem): void {
  if (list.length < MAX_REPORTED) list.push(item)
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** A watcher's absolute path or a root-relative one → root-relative POSIX, or undefined outside the root. */
function toRel(root: string, input: string): string | undefined {
  const rel = path.isAbsolute(input) ? path.relative(root, input) : input
  if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined
  return rel.split(path.sep).join('/').replace(/^\.\//, '')
}
