/**
 * The overview's own work per frame (building spans, drawing), kept in a small ring so
 * bench/ui.bench.ts can read its frame times from the page: `globalThis.__overviewWork`.
 * Fixed size, so a long session costs nothing more.
 */
const SIZE = 2048

interface WorkRing {
  /** ms of overview work, one entry per frame that did any. */
  times: Float64Array
  /** Entries written so far (the ring holds the last SIZE). */
  count: number
}

const ring: WorkRing = { times: new Float64Array(SIZE), count: 0 }
let open = false
let frameWork = 0

declare global {
  /** Read by bench/ui-overview.ts from the page. */
  var __overviewWork: WorkRing | undefined
}

globalThis.__overviewWork = ring

function closeFrame(): void {
  ring.times[ring.count % SIZE] = frameWork
  ring.count++
  open = false
}

/** Runs `work`, adding its time to the current frame's overview work (closed by the next frame). */
export function timeWork<T>(work: () => T): T {
  if (!open) {
    open = true
    frameWork = 0
    if (typeof requestAnimationFrame === 'function') requestAnimationFrame(closeFrame)
  }
  const start = performance.now()
  try {
    return work()
  } finally {
    frameWork += performance.now() - start
  }
}
