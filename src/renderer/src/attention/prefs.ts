import { useSyncExternalStore } from 'react'
import { isRecord } from '../../../shared/records'

/*
 * Whether the app calls for attention when it is in the background: a desktop notification, and a
 * short sound with it. A choice of this device (kept in localStorage, as the diff layout), on by
 * default for notifications (the browser or the OS still asks for permission), off for the sound.
 */

export interface AttentionPrefs {
  notify: boolean
  sound: boolean
}

const STORAGE_KEY = 'stepwise.attention'
const DEFAULTS: AttentionPrefs = { notify: true, sound: false }
const listeners = new Set<() => void>()
let current: AttentionPrefs | null = null

export function parsePrefs(raw: string | null): AttentionPrefs {
  if (!raw) return DEFAULTS
  try {
    const v: unknown = JSON.parse(raw)
    if (!isRecord(v)) return DEFAULTS
    return {
      notify: typeof v.notify === 'boolean' ? v.notify : DEFAULTS.notify,
      sound: typeof v.sound === 'boolean' ? v.sound : DEFAULTS.sound,
    }
  } catch {
    return DEFAULTS
  }
}

export function attentionPrefs(): AttentionPrefs {
  if (current) return current
  let raw: string | null = null
  try {
    raw = globalThis.localStorage?.getItem(STORAGE_KEY) ?? null
  } catch {
    // Storage off: the defaults hold for this run.
  }
  current = parsePrefs(raw)
  return current
}

export function setAttentionPrefs(change: Partial<AttentionPrefs>): void {
  current = { ...attentionPrefs(), ...change }
  try {
    globalThis.localStorage?.setItem(STORAGE_KEY, JSON.stringify(current))
  } catch {
    // Kept for this run only.
  }
  for (const l of listeners) l()
}

export function useAttentionPrefs(): AttentionPrefs {
  return useSyncExternalStore((l) => {
    listeners.add(l)
    return () => listeners.delete(l)
  }, attentionPrefs)
}
