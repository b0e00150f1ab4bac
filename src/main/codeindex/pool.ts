import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { z } from 'zod'
import { processFile, type FileJob, type FileOutcome } from './process-file'
import { yieldToLoop } from './build-steps'
import { foreground } from '../foreground'
import type { WorkerRequest, WorkerResponse } from './worker'

/*
 * Parsing is CPU-bound (tree-sitter in WASM), so a cold index spreads it over
 * worker threads, one per core (two here). Small batches — a watcher's few files —
 * run in process: starting a worker costs more than parsing them.
 *
 * Where the worker script lives depends on how Stepwise runs. From source (tests,
 * `tsx`), the TypeScript worker is loaded through tsx's loader. In a build, the
 * bundler must emit `index-worker.js` beside the entry (src/main/codeindex/worker.ts
 * as an extra entry); without it the index still works, on one thread.
 */

// Not named `require`: the bundler adds a `require` shim of its own to ESM chunks.
const nodeRequire = createRequire(import.meta.url)

/** Below this many files, parse in process. */
export const POOL_THRESHOLD = 200
const BATCH = 48

type WorkerSource = { eval: true; script: string } | { eval: false; script: URL }

let cachedSource: WorkerSource | null | undefined

function workerSource(): WorkerSource | null {
  if (cachedSource !== undefined) return cachedSource
  const here = import.meta.url
  cachedSource = null
  if (/\.ts$/.test(here)) {
    try {
      const tsx = tsxEsmApi()
      const worker = new URL('./worker.ts', here).href
      cachedSource = {
        eval: true,
        script: `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(worker)}) })`,
      }
    } catch {
      cachedSource = null
    }
  } else {
    for (const rel of ['./index-worker.js', '../index-worker.js']) {
      const url = new URL(rel, here)
      if (fs.existsSync(fileURLToPath(url))) {
        cachedSource = { eval: false, script: url }
        break
      }
    }
  }
  return cachedSource
}

/** What tsx's package.json says of its ESM API entry (the rest of its exports are not read). */
const tsxManifestSchema = z.object({
  exports: z.object({
    './esm/api': z
      .object({ import: z.union([z.string(), z.object({ default: z.string().optional() })]).optional() })
      .optional(),
  }),
})

/**
 * tsx's ESM API entry (its `import` export): the CommonJS one fails to register
 * its hooks from inside a worker thread on Node 20.
 */
function tsxEsmApi(): string {
  const manifest = nodeRequire.resolve('tsx/package.json')
  const pkg = tsxManifestSchema.parse(JSON.parse(fs.readFileSync(manifest, 'utf8')))
  const entry = pkg.exports['./esm/api']?.import
  const rel = typeof entry === 'string' ? entry : entry?.default
  if (!rel) throw new Error('tsx has no ESM API entry')
  return pathToFileURL(path.join(path.dirname(manifest), rel)).href
}

export function defaultWorkerCount(): number {
  return Math.max(1, Math.min(4, cores()))
}

/** Nice value of parse threads by default: background work yields the cores to the agent loop. */
export const BACKGROUND_NICE = 10

/**
 * Parse threads of a build at `nice`: a build someone waits on (nice 0, `stepwise index`) takes
 * every core; a background one (a session's) leaves one core to the agent loop. On 2 cores the
 * second parse thread cost a step more than its nice value saved: its batches to store on the
 * session's thread, V8's compiling of its copy of the grammars on threads of normal priority, and
 * ~30–40 MB of resident memory for its heap and WebAssembly memory.
 */
export function workerCountAt(nice: number = BACKGROUND_NICE): number {
  return nice > 0 ? Math.max(1, Math.min(4, cores() - 1)) : defaultWorkerCount()
}

function cores(): number {
  return os.availableParallelism?.() ?? os.cpus().length
}

export interface PoolOptions {
  /** Worker threads to parse on (0: in process, this thread). */
  threads: number
  /** Nice value of the worker threads on Linux (default BACKGROUND_NICE; 0: normal priority). */
  nice?: number
  /** Called with each finished batch, as it arrives. */
  onResults: (results: FileOutcome[]) => void
  signal?: AbortSignal
  /** Starts one parse worker (default: worker.ts, as `workerSource` finds it); a test starts one that fails. */
  startWorker?: (workerData: { nice: number }) => Worker
}

/** Processes every job, in workers when there are enough of them; `onResults` sees each batch. */
export async function processAll(
  jobs: readonly FileJob[],
  opts: PoolOptions,
): Promise<{ workersUsed: number }> {
  const source = workerSource()
  const startWorker =
    opts.startWorker ??
    (source &&
      ((workerData: { nice: number }) => new Worker(source.script, { eval: source.eval, workerData })))
  if (opts.threads < 1 || jobs.length < POOL_THRESHOLD || !startWorker) {
    await processInline(jobs, opts)
    return { workersUsed: 0 }
  }
  const queue: FileJob[][] = []
  for (let i = 0; i < jobs.length; i += BATCH) queue.push(jobs.slice(i, i + BATCH))
  let used = 0
  const runWorker = async () => {
    // Starting a worker takes a core for ~40 ms (Node's own start, the parser's modules) before it
    // can lower its priority: not while an agent's turn runs (foreground.ts).
    await foreground.wait()
    if (opts.signal?.aborted) return
    await new Promise<void>((resolve) => {
      const worker = startWorker({ nice: opts.nice ?? BACKGROUND_NICE })
      // Two batches in flight per worker, so a worker never waits while this thread stores results.
      const inFlight = new Map<number, FileJob[]>()
      let nextId = 0
      let started = false
      let stopping = false
      /** Set once the worker errs or exits: a batch sent to it then would be lost, not handed back. */
      let gone = false
      const next = () => {
        if (gone) return
        // An agent's step comes first (foreground.ts): the next batch is sent once it ends.
        const waiting = foreground.wait()
        if (waiting) return void waiting.then(next)
        const jobsBatch = opts.signal?.aborted ? undefined : queue.shift()
        if (jobsBatch) {
          const request: WorkerRequest = { id: nextId++, jobs: jobsBatch }
          inFlight.set(request.id, jobsBatch)
          worker.postMessage(request)
        } else if (inFlight.size === 0 && !stopping) {
          stopping = true
          void worker.terminate()
        }
      }
      worker.on('message', (response: WorkerResponse) => {
        if (stopping && opts.signal?.aborted) return
        if (!started) {
          started = true
          used++
        }
        inFlight.delete(response.id)
        next()
        opts.onResults(response.results)
      })
      // A worker that dies hands its batches back; the caller finishes what is left in process.
      worker.on('error', () => {
        gone = true
        for (const jobsBatch of inFlight.values()) queue.unshift(jobsBatch)
        inFlight.clear()
      })
      // Stopped: the batches in flight are dropped (nothing of them was stored), at once.
      const onAbort = () => {
        stopping = true
        inFlight.clear()
        void worker.terminate()
      }
      opts.signal?.addEventListener('abort', onAbort, { once: true })
      worker.on('exit', () => {
        gone = true
        opts.signal?.removeEventListener('abort', onAbort)
        resolve()
      })
      next()
      next()
    })
  }
  await Promise.all(Array.from({ length: Math.min(opts.threads, queue.length) }, runWorker))
  const left = queue.flat()
  if (left.length > 0 && !opts.signal?.aborted) await processInline(left, opts)
  return { workersUsed: used }
}

async function processInline(jobs: readonly FileJob[], opts: PoolOptions): Promise<void> {
  let batch: FileOutcome[] = []
  for (const job of jobs) {
    if (opts.signal?.aborted) break
    batch.push(await processFile(job))
    if (batch.length >= BATCH) {
      opts.onResults(batch)
      batch = []
      // Parsing on the main thread: let the agent loop and I/O in between batches.
      await yieldToLoop()
    }
  }
  if (batch.length > 0) opts.onResults(batch)
}
