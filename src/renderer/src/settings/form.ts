import type { AppSettings } from '../../../shared/protocol'

/**
 * The settings form's draft (what the fields hold, as text) and its way back to `AppSettings`,
 * with a message for each field that does not hold a valid value.
 */

export interface SettingsDraft {
  approvalPolicy: AppSettings['approvalPolicy']
  allow: string
  deny: string
  maxReadKb: string
  maxWriteKb: string
  maxSteps: string
  theme: AppSettings['theme']
}

export type DraftErrors = Partial<Record<keyof SettingsDraft, string>>

const MIN_KB = 1
const MAX_KB = 64 * 1024
const MAX_STEPS = 10_000
const MAX_RULES = 500

export function toDraft(s: AppSettings): SettingsDraft {
  return {
    approvalPolicy: s.approvalPolicy,
    allow: s.commands.allow.join('\n'),
    deny: s.commands.deny.join('\n'),
    maxReadKb: String(bytesToKb(s.limits.maxReadBytes)),
    maxWriteKb: String(bytesToKb(s.limits.maxWriteBytes)),
    maxSteps: String(s.maxSteps),
    theme: s.theme,
  }
}

export function bytesToKb(bytes: number): number {
  return Math.round(bytes / 1024)
}

/** One rule a line; blank lines dropped, spaces around trimmed, repeats kept once. */
export function parseLines(text: string): string[] {
  return [...new Set(text.split(/\r?\n/).map((line) => line.trim()))].filter((line) => line !== '')
}

function parseWhole(text: string, min: number, max: number): number | null {
  const trimmed = text.trim()
  if (!/^\d+$/.test(trimmed)) return null
  const n = Number(trimmed)
  return n >= min && n <= max ? n : null
}

/**
 * The settings a draft stands for. A limit left as it was keeps its exact byte count from
 * `original`, so saving never rounds a limit that was not a whole number of KB.
 */
export function fromDraft(
  draft: SettingsDraft,
  original?: AppSettings,
): { ok: true; settings: AppSettings } | { ok: false; errors: DraftErrors } {
  const errors: DraftErrors = {}
  const allow = parseLines(draft.allow)
  const deny = parseLines(draft.deny)
  if (allow.length > MAX_RULES) errors.allow = `At most ${MAX_RULES} commands.`
  if (deny.length > MAX_RULES) errors.deny = `At most ${MAX_RULES} commands.`
  const readKb = parseWhole(draft.maxReadKb, MIN_KB, MAX_KB)
  const writeKb = parseWhole(draft.maxWriteKb, MIN_KB, MAX_KB)
  const maxSteps = parseWhole(draft.maxSteps, 1, MAX_STEPS)
  const kbRange = `A whole number of KB from ${MIN_KB} to ${MAX_KB.toLocaleString('en-US')}.`
  if (readKb === null) errors.maxReadKb = kbRange
  if (writeKb === null) errors.maxWriteKb = kbRange
  if (maxSteps === null) errors.maxSteps = `A whole number from 1 to ${MAX_STEPS.toLocaleString('en-US')}.`
  if (readKb === null || writeKb === null || maxSteps === null || Object.keys(errors).length > 0) {
    return { ok: false, errors }
  }
  return {
    ok: true,
    settings: {
      approvalPolicy: draft.approvalPolicy,
      commands: { allow, deny },
      limits: {
        maxReadBytes: keepBytes(readKb, original?.limits.maxReadBytes),
        maxWriteBytes: keepBytes(writeKb, original?.limits.maxWriteBytes),
      },
      theme: draft.theme,
      maxSteps,
    },
  }
}

function keepBytes(kb: number, originalBytes: number | undefined): number {
  return originalBytes !== undefined && bytesToKb(originalBytes) === kb ? originalBytes : kb * 1024
}
