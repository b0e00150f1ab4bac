import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/*
 * A session's start makes garbage in one burst: loading the token tables alone leaves ~13 MB of it
 * (of 28 MB the load takes). V8 collects it when the old generation next reaches its limit, a
 * moment of its own choosing: in a big tree's later sessions that major collection (a 12–20 ms
 * pause) fell 30–45 ms after the first request about one session in four, making those first
 * steps 60–170 ms (docs/benchmarks.md). Collected at once before a session's first turn (with the
 * first request's warm-up, session.ts), it costs the session's thread ~40–50 ms while its baseline's
 * threads or its context are still at work, before the first request instead.
 */

let collector: (() => void) | null | undefined

/**
 * V8's full collection, reached as `node --expose-gc` reaches it: with the flag set, a new context
 * is given a `gc` function, which collects the whole heap; the flag is unset at once, so no later
 * context (a sandboxed script's, an extension's) gets one. Null where V8 does not hand it over.
 */
function v8Collector(): (() => void) | null {
  if (collector !== undefined) return collector
  try {
    setFlagsFromString('--expose-gc')
    const gc: unknown = runInNewContext('gc')
    collector = typeof gc === 'function' ? () => void Reflect.apply(gc, undefined, []) : null
  } catch {
    collector = null
  } finally {
    setFlagsFromString('--no-expose-gc')
  }
  return collector
}

/** Collects the process's garbage now, on this thread; false when V8 offers no way to. */
export function collectGarbageNow(): boolean {
  const gc = v8Collector()
  if (!gc) return false
  gc()
  return true
}
