import { InputHistory } from './mentions'

/**
 * The message box's history, kept per project in localStorage so ↑ still finds yesterday's
 * messages after the app restarts. The newest `LIMIT` are kept.
 */

export const HISTORY_LIMIT = 200

/** The subset of `Storage` used here (a Map-backed fake stands in for it in unit tests). */
export type KeyValueStore = Pick<Storage, 'getItem' | 'setItem'>

function keyOf(repo: string): string {
  return `stepwise.input-history:${repo}`
}

function storage(): KeyValueStore | undefined {
  try {
    return globalThis.localStorage
  } catch {
    return undefined // storage can be off (private windows, a sandboxed frame)
  }
}

export function loadHistory(repo: string, store = storage()): InputHistory {
  try {
    const raw: unknown = JSON.parse(store?.getItem(keyOf(repo)) ?? '[]')
    const entries = Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : []
    return new InputHistory(entries.slice(-HISTORY_LIMIT))
  } catch {
    return new InputHistory()
  }
}

export function saveHistory(repo: string, history: InputHistory, store = storage()): void {
  try {
    store?.setItem(keyOf(repo), JSON.stringify(history.list().slice(-HISTORY_LIMIT)))
  } catch {
    // Full or off: the history still works until the app closes.
  }
}
