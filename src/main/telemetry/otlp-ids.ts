import { createHash } from 'node:crypto'

/**
 * Trace and span ids derived from the session, so the same session always exports
 * the same trace: a re-export replaces, never duplicates, what a trace store holds,
 * and the live export and the file agree span for span. W3C ids must not be all
 * zeros; a hash never is in practice, and the last byte is forced odd to be sure.
 */
function hexId(text: string, bytes: number): string {
  const hash = createHash('sha256').update(text).digest()
  const id = hash.subarray(0, bytes)
  id[bytes - 1] |= 1
  return id.toString('hex')
}

/** 32 hex digits: one trace per session. */
export function traceIdFor(sessionId: string): string {
  return hexId(`stepwise.trace:${sessionId}`, 16)
}

/** 16 hex digits: `role` says what the span is (`session`, `turn`, `chat`, `tool`), `key` which one. */
export function spanIdFor(sessionId: string, role: string, key: string | number = ''): string {
  return hexId(`stepwise.span:${sessionId}:${role}:${key}`, 8)
}
