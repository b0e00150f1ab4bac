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
  maxToolCalls: string
  theme: AppSettings['theme']
  /** The model's window and temperature: empty for the defaults. */
  numCtx: string
  maxNumCtx: string
  temperature: string
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
    maxToolCalls: String(s.maxToolCalls),
    theme: s.theme,
    numCtx: optionalText(s.modelOptions.numCtx),
    maxNumCtx: optionalText(s.modelOptions.maxNumCtx),
    temperature: optionalText(s.modelOptions.temperature),
  }
}

function optionalText(n: number | undefined): string {
  return n === undefined ? '' : String(n)
}

/** What the window and temperature fields do, said where they are edited. */
export const MODEL_OPTIONS_NOTE =
  "Empty window: Ollama uses the model's own length up to the largest automatic window (32,768 unless raised); another server's window comes from Stepwise's model table. Windows of 8,192 tokens or less get a compact prompt. Applies from the next turn."

/** The draft's fields typed as text: every one is a row of the field table below. */
export type TextKey = Exclude<keyof SettingsDraft, 'approvalPolicy' | 'theme'>

/** One row of the settings form: a text box (`lines`: one rule a line) or a number field. */
export interface FieldSpec {
  key: TextKey
  label: string
  kind: 'lines' | 'number'
  placeholder?: string
  inputMode?: 'numeric' | 'decimal'
}

/** A fieldset of rows, with its legend, layout and an optional note under the rows. */
export interface FieldGroup {
  legend: string
  columns: 2 | 3
  fields: readonly FieldSpec[]
  testId?: string
  note?: string
}

/**
 * The settings form's text rows, as a table: the form draws them, `fromDraft` checks them.
 * A new setting is a draft key, a row here and its check in `fromDraft`.
 */
export const FIELD_GROUPS: readonly FieldGroup[] = [
  {
    legend: 'Commands',
    columns: 2,
    fields: [
      { key: 'allow', label: 'Always allow (one a line)', kind: 'lines', placeholder: 'npm test' },
      { key: 'deny', label: 'Never run (one a line)', kind: 'lines', placeholder: 'git push' },
    ],
  },
  {
    legend: 'Limits',
    columns: 2,
    fields: [
      { key: 'maxReadKb', label: 'Max file read (KB)', kind: 'number' },
      { key: 'maxWriteKb', label: 'Max file write (KB)', kind: 'number' },
      { key: 'maxSteps', label: 'Max steps a turn', kind: 'number' },
      { key: 'maxToolCalls', label: 'Max tool calls a turn', kind: 'number' },
    ],
  },
  {
    legend: 'Model window and sampling',
    columns: 3,
    testId: 'settings-model-options',
    note: MODEL_OPTIONS_NOTE,
    fields: [
      { key: 'numCtx', label: 'Context window (tokens)', kind: 'number', placeholder: 'auto' },
      { key: 'maxNumCtx', label: 'Largest automatic window', kind: 'number', placeholder: '32768' },
      {
        key: 'temperature',
        label: 'Temperature',
        kind: 'number',
        placeholder: 'server default',
        inputMode: 'decimal',
      },
    ],
  },
]

export const MIN_CTX = 512
export const MAX_CTX = 2_097_152

/**
 * The model options a draft's three fields stand for: empty fields are left out (the
 * defaults apply), an invalid one is an error message for its field.
 */
export function parseModelOptions(
  draft: Pick<SettingsDraft, 'numCtx' | 'maxNumCtx' | 'temperature'>,
): { ok: true; options: AppSettings['modelOptions'] } | { ok: false; errors: DraftErrors } {
  const errors: DraftErrors = {}
  const options: AppSettings['modelOptions'] = {}
  const ctxRange = `Empty, or a whole number of tokens from ${MIN_CTX} to ${MAX_CTX.toLocaleString('en-US')}.`
  for (const key of ['numCtx', 'maxNumCtx'] as const) {
    if (draft[key].trim() === '') continue
    const n = parseWhole(draft[key], MIN_CTX, MAX_CTX)
    if (n === null) errors[key] = ctxRange
    else options[key] = n
  }
  const t = draft.temperature.trim()
  if (t !== '') {
    const n = Number(t)
    if (!/^\d*\.?\d+$/.test(t) || n > 2) errors.temperature = 'Empty, or a number from 0 to 2 (e.g. 0.2).'
    else options.temperature = n
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, options }
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
  const maxToolCalls = parseWhole(draft.maxToolCalls, 1, MAX_STEPS)
  const kbRange = `A whole number of KB from ${MIN_KB} to ${MAX_KB.toLocaleString('en-US')}.`
  if (readKb === null) errors.maxReadKb = kbRange
  if (writeKb === null) errors.maxWriteKb = kbRange
  const stepsRange = `A whole number from 1 to ${MAX_STEPS.toLocaleString('en-US')}.`
  if (maxSteps === null) errors.maxSteps = stepsRange
  if (maxToolCalls === null) errors.maxToolCalls = stepsRange
  const modelOptions = parseModelOptions(draft)
  if (!modelOptions.ok) Object.assign(errors, modelOptions.errors)
  if (
    !modelOptions.ok ||
    readKb === null ||
    writeKb === null ||
    maxSteps === null ||
    maxToolCalls === null ||
    Object.keys(errors).length > 0
  ) {
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
      maxToolCalls,
      modelOptions: modelOptions.options,
    },
  }
}

function keepBytes(kb: number, originalBytes: number | undefined): number {
  return originalBytes !== undefined && bytesToKb(originalBytes) === kb ? originalBytes : kb * 1024
}
