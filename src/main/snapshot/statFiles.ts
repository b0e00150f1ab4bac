import fs from 'node:fs'
import os from 'node:os'
import { helperThreads, type HelperThread, type HelperThreads } from './helperThreads'

/**
 * Stats many files at once on helper threads. On an unchanged tree a snapshot is
 * almost nothing but one stat per file, and git's `status` stats its index from
 * several threads (core.preloadIndex) — so must we, to keep up. Measured on 2
 * cores, 50,000 files: 130–165 ms on one thread, 90–110 ms split. The calling
 * thread stats none of a big list itself: it stays free for the session (a
 * session loads its tokenizer while its baseline is taken), unless it says it
 * only waits (`shared`). Two helpers at most (more would only queue on the same
 * disk cache), one core left to the caller.
 */

/** Per file: status, size, mtimeMs, ino, mode. */
export const STAT_FIELDS = 5
/** status: STAT_OK when stat'ed; anything else means "stat it again yourself to learn why". */
export const STAT_OK = 1

/** Below this many files the helpers cost more than they save. */
const PARALLEL_MIN_FILES = 4000

/**
 * The helper thread's code, evaluated from a string so it needs no file of its
 * own beside whatever bundle this module ends up in. It does what `fill` does;
 * statFiles.test.ts holds the two to the same answers.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads')
const { statSync } = require('node:fs')
// An EncodedRange's paths, all of them; undefined when the bytes do not hold its count.
const decode = ({ bytes, count }) => {
  const all = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8').split('\\0')
  return all.length === count ? all : undefined
}
parentPort.on('message', ({ id, root, paths, encoded, ctime }) => {
  const list = encoded ? decode(encoded) : paths
  if (!list) return parentPort.postMessage({ id, out: undefined })
  const from = encoded ? encoded.from : 0
  const to = encoded ? encoded.to : paths.length
  const n = ctime ? 6 : 5
  const out = new Float64Array((to - from) * n)
  for (let i = from, o = 0; i < to; i++, o += n) {
    let st
    try {
      st = statSync(root + '/' + list[i], { throwIfNoEntry: false })
    } catch {}
    if (st === undefined) continue
    out[o] = 1
    out[o + 1] = st.size
    out[o + 2] = st.mtimeMs
    out[o + 3] = st.ino
    out[o + 4] = st.mode
    if (ctime) out[o + 5] = st.ctimeMs
  }
  parentPort.postMessage({ id, out }, [out.buffer])
})
`

/**
 * A helper's part of a listing sent as the bytes it was saved as (statFiles' `encoded`): the
 * helper decodes them itself, so the calling thread posts one buffer instead of cloning a string
 * per path (~10 ms for 85,000 paths at a session's start). `count`: how many paths the bytes hold.
 */
interface EncodedRange {
  bytes: Uint8Array<ArrayBuffer>
  count: number
  from: number
  to: number
}

/** A slice of a listing: paths[from..to). */
interface PathRange {
  paths: readonly string[]
  from: number
  to: number
}

/** Stats the range's paths into `out` from record `from` on (`n` fields each: with ctime at 6). */
function fill(root: string, { paths, from, to }: PathRange, out: Float64Array, n = STAT_FIELDS): void {
  for (let i = from, o = from * n; i < to; i++, o += n) {
    let st: fs.Stats | undefined
    try {
      st = fs.statSync(`${root}/${paths[i]}`, { throwIfNoEntry: false })
    } catch {
      // status stays 0: the caller stats it again for the reason
    }
    if (st === undefined) continue
    out[o] = STAT_OK
    out[o + 1] = st.size
    out[o + 2] = st.mtimeMs
    out[o + 3] = st.ino
    out[o + 4] = st.mode
    if (n > STAT_FIELDS) out[o + 5] = st.ctimeMs
  }
}

/**
 * Two helpers at most, and a core left for the session's thread, which meanwhile
 * loads what its first request needs: on two cores one helper. Measured there, a
 * session on an unchanged 72,000-file tree took 1.01 s with one helper and 1.08 s
 * with two (median of 5 each): the stats finish later, the thread that waits on
 * them sooner.
 */
const helperCount = () => Math.max(1, Math.min(2, os.availableParallelism() - 1))
const helpers = helperThreads<Float64Array>(WORKER_SOURCE, helperCount)

/**
 * The same, for background work (an index's check against the disk): on Linux each
 * thread lowers its own priority (nice 10), so the session's thread and a snapshot's
 * stats keep the cores when they want them.
 */
const NICE_PREFIX = `
try {
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop())
  if (Number.isInteger(tid) && tid > 0) require('node:os').setPriority(tid, 10)
} catch {}
`
const backgroundHelpers = helperThreads<Float64Array>(NICE_PREFIX + WORKER_SOURCE, helperCount)

/**
 * Starts the helper threads now, for a caller that knows a big `statFiles` is
 * coming: a thread takes tens of milliseconds to start, which can overlap the
 * caller's own setup instead of delaying the stats. Idle helpers keep nothing alive.
 */
export function warmStatHelpers(): void {
  helpers.get()
}

interface StatOptions {
  parallelMinFiles?: number
  background?: boolean
  /**
   * `paths` as UTF-8 with a NUL between each (as a saved state holds them): sent to the helpers
   * instead of the strings. A helper that finds another count of paths in them answers nothing,
   * and its part is stat'ed here.
   */
  encoded?: Uint8Array
  /**
   * The caller waits for the answer with nothing else to do (a snapshot's stats of a new
   * listing): it stats a share of the paths itself (statShared) instead of idling beside the
   * helpers. Not with `encoded`.
   */
  shared?: boolean
  /** With `shared`: paths per helper message (SHARED_CHUNK_FILES unless said; tests use fewer). */
  chunkFiles?: number
}

/** With `shared`, paths per helper message (~5 ms of stats on a local disk). */
const SHARED_CHUNK_FILES = 2048
/** With `shared`, the calling thread's stats between two turns of its event loop: at most this long… */
const SHARED_TURN_MS = 5
/** …checked after each this many paths. */
const SHARED_STEP_FILES = 64

/**
 * Stats every `root/path` (following links, like fs.statSync), returning
 * STAT_FIELDS numbers per path. A path whose status is not STAT_OK could not be
 * stat'ed (vanished, or an error): the caller stats it again to learn why. With
 * `signal`, an abort answers undefined at once, leaving the helpers' work behind
 * (a stopped index check must not hold a finished session's exit). With
 * `background`, on helpers of lower priority.
 */
export async function statFiles(
  root: string,
  paths: readonly string[],
  opts?: StatOptions,
): Promise<Float64Array>
export async function statFiles(
  root: string,
  paths: readonly string[],
  opts: StatOptions & { signal: AbortSignal },
): Promise<Float64Array | undefined>
export async function statFiles(
  root: string,
  paths: readonly string[],
  opts: StatOptions & { signal?: AbortSignal } = {},
): Promise<Float64Array | undefined> {
  const { signal } = opts
  const out = new Float64Array(paths.length * STAT_FIELDS)
  const threads = opts.background ? backgroundHelpers : helpers
  const pool = paths.length >= (opts.parallelMinFiles ?? PARALLEL_MIN_FILES) ? threads.get() : undefined
  if (!pool) {
    fill(root, { paths, from: 0, to: paths.length }, out)
    return out
  }
  if (opts.shared && !opts.encoded)
    return statShared(root, { paths, chunk: opts.chunkFiles ?? SHARED_CHUNK_FILES }, out, {
      threads,
      pool,
      signal,
    })
  const per = Math.ceil(paths.length / pool.length)
  const parts = pool.map((h, i) => {
    const from = Math.min(i * per, paths.length)
    const to = Math.min(from + per, paths.length)
    if (!opts.encoded)
      return { from, to, answer: threads.runOn(h, { root, paths: paths.slice(from, to) }, [], signal) }
    // A copy of its own to hand over (a Buffer's slice would share, and detach, the caller's memory).
    const part: EncodedRange = { bytes: new Uint8Array(opts.encoded), count: paths.length, from, to }
    return { from, to, answer: threads.runOn(h, { root, encoded: part }, [part.bytes.buffer], signal) }
  })
  for (const { from, to, answer } of parts) {
    const got = await answer
    if (signal?.aborted) return undefined
    place(root, { paths, from, to }, got, out)
  }
  return out
}

/**
 * A helper's answer for `range` into `out`. An answer that does not fit (the helper failed, or
 * found another count of paths in `encoded` bytes) is no answer: the range is stat'ed here, and
 * false says so.
 */
function place(root: string, range: PathRange, got: Float64Array | undefined, out: Float64Array): boolean {
  if (got?.length === (range.to - range.from) * STAT_FIELDS) {
    out.set(got, range.from * STAT_FIELDS)
    return true
  }
  fill(root, range, out)
  return false
}

/**
 * `statFiles` with the caller as one more helper: the helpers take chunks from the front of the
 * list (one each at a time), the calling thread takes a few paths at a time from the back, until
 * they meet. On two cores, where one helper stats and the other core would sit idle while the
 * caller waits, a first baseline's stats of 72,000 files took ~0.3 s on the helper alone. The
 * caller hands its event loop a turn every SHARED_TURN_MS whatever the disk's speed (a stat on a
 * network file system can take a millisecond). A helper that fails takes no more chunks; the caller
 * does the rest.
 */
async function statShared(
  root: string,
  { paths, chunk }: { paths: readonly string[]; chunk: number },
  out: Float64Array,
  on: {
    threads: HelperThreads<Float64Array>
    pool: readonly HelperThread<Float64Array>[]
    signal: AbortSignal | undefined
  },
): Promise<Float64Array | undefined> {
  const { threads, signal } = on
  // paths[front..back) are left to stat.
  let front = 0
  let back = paths.length
  const onHelper = async (h: HelperThread<Float64Array>) => {
    while (front < back && !signal?.aborted) {
      const r: PathRange = { paths, from: front, to: Math.min(back, front + chunk) }
      front = r.to
      const got = await threads.runOn(h, { root, paths: paths.slice(r.from, r.to) }, [], signal)
      if (signal?.aborted) return
      if (!place(root, r, got, out)) return // the rest by the others
    }
  }
  const here = async () => {
    while (front < back && !signal?.aborted) {
      const until = performance.now() + SHARED_TURN_MS
      do {
        const r: PathRange = { paths, from: Math.max(front, back - SHARED_STEP_FILES), to: back }
        back = r.from
        fill(root, r, out)
      } while (front < back && performance.now() < until)
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
  // The helpers' first chunks are taken before this thread starts on its first paths.
  await Promise.all([...on.pool.map(onHelper), here()])
  return signal?.aborted ? undefined : out
}

/** Per path with `statWithCtime`: the STAT_FIELDS, then ctimeMs. */
export const CTIME_FIELDS = STAT_FIELDS + 1

/**
 * The same stats plus each path's ctime, on one helper (a few thousand paths: the
 * directories and ignore files a kept listing is checked by). Sent before a big
 * `statFiles`, it is answered first.
 */
export async function statWithCtime(root: string, paths: readonly string[]): Promise<Float64Array> {
  const got = await helpers.run({ root, paths, ctime: true })
  if (got) return got
  const out = new Float64Array(paths.length * CTIME_FIELDS)
  fill(root, { paths, from: 0, to: paths.length }, out, CTIME_FIELDS)
  return out
}
