import fs from 'node:fs'
import path from 'node:path'
import type { StoredStat } from '../store/code-index-tables'
import { pushAll } from '../../shared/arrays'
import { EXTRACTOR_VERSION } from './analyze'
import type { BuildProgress, BuildReport, CodeIndex, CodeIndexOptions, UpdateReport } from './api'
import { checkStored, coverageAfter, nothingChanged, saveRows, yieldToLoop } from './build-steps'
import type { createCheckStateCache } from './checkState'
import type { DerivedGraph } from './derived-graph'
import { push, storedProblems, toRel } from './index-helpers'
import type { IndexState } from './index-state'
import { BACKGROUND_NICE, processAll, workerCountAt } from './pool'
import type { FileJob, FileOutcome } from './process-file'
import { sharedRun } from './shared-run'
import { foreground } from '../foreground'
import type { FileFacts } from './types'

/*
 * What brings the code index up to date with the disk (code-index.ts): build() checks
 * every listed file against the stored rows and re-reads the changed ones on the worker
 * pool, reporting its progress; update() re-reads named files (the watcher's saves).
 * Both run one at a time, and callers of a running build share it.
 */

export interface Builder {
  build: CodeIndex['build']
  update: CodeIndex['update']
  /** The running build's progress, if one runs. */
  progress(): BuildProgress | undefined
}

type Given = Pick<NonNullable<Parameters<CodeIndex['build']>[0]>, 'listing'>

export interface BuilderParts {
  opts: CodeIndexOptions
  prefix: string | undefined
  state: IndexState
  derived: DerivedGraph
  checkState: ReturnType<typeof createCheckStateCache>
}

export function createBuilder(parts: BuilderParts): Builder {
  let queue: Promise<unknown> = Promise.resolve()
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn)
    queue = run.catch(() => undefined)
    return run
  }
  const builds = sharedRun<BuildProgress, BuildReport, Given>(
    (signal, publish, given) => serial(() => build(parts, signal, publish, given)),
    (p) => p.phase === 'done',
  )
  return {
    build: (o) => builds.start(o),
    update: (p) => serial(() => update(parts, p)),
    progress: () => builds.progress(),
  }
}

/** One build's inputs, as its phases share them. */
interface Run {
  parts: BuilderParts
  signal: AbortSignal
  report: (p: BuildProgress) => void
  started: number
  listed: readonly string[]
  /** The listed files' stats, when a caller vouched for the listing. */
  stats?: Float64Array
  /** The rows a check state file saved at the index's current generation. */
  saved?: readonly StoredStat[]
  /** The tree (a snapshot's manifest) the caller found the files unchanged since. */
  tree?: string
}

async function build(
  parts: BuilderParts,
  signal: AbortSignal,
  report: (p: BuildProgress) => void,
  given: Given,
): Promise<BuildReport> {
  const { opts, prefix, state, checkState } = parts
  const started = performance.now()
  report({ phase: 'listing', done: 0, total: 0 })
  // A session starts its build beside its baseline: let the baseline's stats get going
  // before loading 70,000 paths takes this thread.
  await yieldToLoop()
  const vouched = prefix ? undefined : await given.listing?.()
  // The files are as they were when a finished check last found this index true of them.
  const tree = vouched?.unchangedSince
  if (tree && state.coverage.complete && checkState.checkedAgainst(tree)) {
    const files = state.tables.meta()?.fileCount ?? 0
    report({ phase: 'done', done: files, total: vouched!.paths.length })
    return nothingChanged(started, files, false)
  }
  // Rows saved at this generation are the stored ones: with them, the paths are loaded
  // only if the check finds something to change (a session on an unchanged tree never does).
  const saved = checkState.take()
  if (!saved) state.ensureLoaded()
  const nice = opts.workerNice ?? BACKGROUND_NICE
  // Judging the listed paths takes slices of this thread: none while an agent's step runs.
  const pause = () => foreground.wait()
  const listed = vouched?.paths ?? (await opts.sandbox.listFiles({ prefix, signal, nice, pause })).files
  const run: Run = { parts, signal, report, started, listed, stats: vouched?.stats, saved, tree }
  // A listing cut short is not the project: taken as such, it would drop every stored file.
  if (signal.aborted) return nothingChanged(started, fileCount(run), true)
  return checkAndParse(run)
}

/** The files the index holds: the saved rows' count while the paths were not loaded. */
function fileCount({ parts: { state }, saved }: Run): number {
  return state.loaded()
    ? state.indexed.size
    : (saved?.filter((r) => r.version === EXTRACTOR_VERSION).length ?? 0)
}

/** Checks the listing against the stored rows and parses what changed, on the worker pool. */
async function checkAndParse(run: Run): Promise<BuildReport> {
  const { parts, signal, report, listed, saved } = run
  const { opts, state } = parts
  const before = { complete: state.coverage.complete, warning: state.coverage.warning }
  state.coverage.warning = undefined
  report({ phase: 'indexing', done: 0, total: listed.length })
  const isCurrent = (row: StoredStat) =>
    row.version === EXTRACTOR_VERSION && (saved !== undefined || state.indexed.has(row.path))
  const readAt = state.tables.generation()
  const check = await checkStored({
    root: opts.root,
    listed,
    stats: run.stats,
    store: state.tables,
    saved,
    isCurrent,
    signal,
  })
  const { jobs, gone } = check
  if (jobs.length > 0 || gone.length > 0) state.ensureLoaded()
  state.remove(gone)
  const result: BuildReport = {
    ...nothingChanged(run.started, 0, false),
    unchanged: check.unchanged,
    removed: gone.length,
  }
  const changed: string[] = [...gone]
  let done = check.unchanged
  report({ phase: 'indexing', done, total: listed.length })
  const { workersUsed } = await processAll(jobs, {
    threads: parseThreads(opts),
    nice: opts.workerNice,
    signal,
    onResults: (batch) => {
      pushAll(changed, applyBatch(state, batch, result))
      done += batch.length
      report({ phase: 'indexing', done, total: listed.length })
    },
  })
  result.workers = workersUsed
  const end = { aborted: signal.aborted, fresh: check.fresh, listed, indexed: state.indexed }
  const coverage = coverageAfter(end, before)
  finishReport(run, result, changed, coverage)
  report({ phase: 'done', done, total: listed.length })
  parts.derived.invalidate(changed)
  await saveCheck(run, result, { rows: check.rows, readAt, changedAny: jobs.length > 0 || gone.length > 0 })
  return result
}

/** The parse threads of a build: `workers` as given (1: in process), or as many as its priority allows. */
function parseThreads(opts: CodeIndexOptions): number {
  if (opts.workers === undefined) return workerCountAt(opts.workerNice)
  return opts.workers > 1 ? opts.workers : 0
}

/** The report's last fields, the coverage kept and the root's row written. */
function finishReport(
  run: Run,
  result: BuildReport,
  changed: readonly string[],
  coverage: { complete: boolean; warning?: string },
): void {
  const { state } = run.parts
  // Problems of unchanged files come from their stored rows, so a rebuild reports them
  // too (not after a stop, which must end the build at once).
  if (!run.signal.aborted && result.parsed < run.listed.length)
    storedProblems(
      state.tables.problems(EXTRACTOR_VERSION),
      { listed: run.listed, changed: new Set(changed), factsOf: state.factsOf },
      result,
    )
  result.aborted = run.signal.aborted
  Object.assign(state.coverage, coverage)
  result.files = fileCount(run)
  state.saveMeta(result.files)
  result.grammarErrors = [...state.grammarErrors]
  result.warning = state.coverage.warning
  result.seconds = (performance.now() - run.started) / 1000
}

/**
 * For the next process's check: the rows as they are now, read again after changes; the
 * rows the check read and left unchanged are saved as read; saved ones still true stay,
 * unless this finished whole check can name the tree it found them true of.
 */
async function saveCheck(
  run: Run,
  result: BuildReport,
  { rows, readAt, changedAny }: { rows: readonly StoredStat[]; readAt: number; changedAny: boolean },
): Promise<void> {
  if (result.aborted) return
  const { state, checkState } = run.parts
  const checked = state.coverage.complete ? run.tree : undefined
  if (changedAny) await saveRows(checkState, state.tables, run.signal, checked)
  else if (!run.saved || checked) checkState.save(rows, readAt, checked)
}

/** A batch of a build's outcomes into the state and the report; returns the changed paths. */
function applyBatch(state: IndexState, batch: readonly FileOutcome[], result: BuildReport): string[] {
  const { changed, parsed } = state.apply(batch, true)
  for (const o of batch) {
    if (o.status === 'parsed') {
      result.parsed++
      reportProblems(result, o.rel, parsed.get(o.rel)!)
    } else if (o.status === 'unchanged' || o.status === 'touched') result.unchanged++
    else if (o.status === 'error') push(result.errors, { path: o.rel, reason: o.error })
  }
  return changed
}

function reportProblems(result: BuildReport, rel: string, f: FileFacts): void {
  if (f.kind === 'skipped' || f.kind === 'binary')
    push(result.skipped, { path: rel, reason: f.note ?? 'binary file: metadata only' })
  if (f.parseErrors > 0) push(result.parseErrors, { path: rel, reason: `${f.parseErrors} syntax error(s)` })
}

async function update(parts: BuilderParts, paths: readonly string[]): Promise<UpdateReport> {
  const { opts, state } = parts
  const { jobs, removed } = updateJobs(parts, paths)
  state.remove(removed)
  const report: UpdateReport = { parsed: [], removed, unchanged: [], errors: [] }
  const outcomes: FileOutcome[] = []
  await processAll(jobs, {
    threads: parseThreads(opts),
    onResults: (b) => pushAll(outcomes, b),
  })
  const before = new Map(outcomes.map((o) => [o.rel, state.known(o.rel)]))
  const changed = [...removed, ...state.apply(outcomes, false).changed]
  const patched = removed.length === 0 && parts.derived.patch(changed, before)
  for (const o of outcomes) {
    if (o.status === 'parsed') report.parsed.push(o.rel)
    else if (o.status === 'gone') report.removed.push(o.rel)
    else if (o.status === 'error') report.errors.push({ path: o.rel, reason: o.error })
    else report.unchanged.push(o.rel)
  }
  if (changed.length > 0) state.saveMeta(state.indexed.size)
  parts.derived.invalidate(changed, patched)
  return report
}

/** The named paths as jobs for the workers, and the indexed files they say went away. */
function updateJobs(parts: BuilderParts, paths: readonly string[]): { jobs: FileJob[]; removed: string[] } {
  const { opts, prefix, state } = parts
  const root = opts.root
  const jobs: FileJob[] = []
  const removed: string[] = []
  for (const input of new Set(paths)) {
    const rel = toRel(root, input)
    if (rel === undefined || rel === '' || (prefix && rel !== prefix && !rel.startsWith(prefix + '/')))
      continue
    state.ensureLoaded()
    if (!isFile(path.join(root, rel)) || opts.sandbox.isIgnored(rel)) {
      // Deleted, ignored, or a directory that went away: drop what the index had there.
      const under = [...state.indexed].filter((p) => p.startsWith(rel + '/'))
      for (const p of state.indexed.has(rel) ? [rel, ...under] : under) removed.push(p)
      continue
    }
    jobs.push({ rel, abs: path.join(root, rel), known: state.tables.known(rel), force: true })
  }
  return { jobs, removed }
}

function isFile(abs: string): boolean {
  try {
    return fs.lstatSync(abs).isFile()
  } catch {
    return false
  }
}
