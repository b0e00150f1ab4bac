import { describe, expect, it } from 'vitest'
import { appSettingsSchema, type AppSettings } from '../../../shared/protocol'
import { bytesToKb, FIELD_GROUPS, fromDraft, parseLines, parseModelOptions, toDraft } from './form'

const settings: AppSettings = {
  approvalPolicy: 'ask',
  commands: { allow: ['npm test', 'git status'], deny: ['rm -rf /'] },
  limits: { maxReadBytes: 1024 * 1024, maxWriteBytes: 512 * 1024 },
  theme: 'system',
  maxSteps: 50,
  maxToolCalls: 50,
  modelOptions: { numCtx: 8192, temperature: 0.2 },
}

describe('the settings draft', () => {
  it('goes back to the same settings unchanged', () => {
    const back = fromDraft(toDraft(settings))
    expect(back).toEqual({ ok: true, settings })
  })
  it('shows limits in KB and one command a line', () => {
    const draft = toDraft(settings)
    expect(draft.maxReadKb).toBe('1024')
    expect(draft.maxWriteKb).toBe('512')
    expect(draft.allow).toBe('npm test\ngit status')
  })
  it('produces what the core accepts', () => {
    const back = fromDraft({
      ...toDraft(settings),
      maxReadKb: '65536',
      allow: ' npm test \n\n npm test\nls\r\n',
    })
    if (!back.ok) throw new Error('expected ok')
    expect(back.settings.limits.maxReadBytes).toBe(64 * 1024 * 1024)
    expect(back.settings.commands.allow).toEqual(['npm test', 'ls'])
    expect(appSettingsSchema.safeParse(back.settings).success).toBe(true)
  })
  it('keeps an unchanged limit to the byte, and sets a changed one in whole KB', () => {
    const odd = { ...settings, limits: { maxReadBytes: 100_000, maxWriteBytes: 100_000 } }
    const back = fromDraft({ ...toDraft(odd), maxWriteKb: '100' }, odd)
    expect(back.ok && back.settings.limits).toEqual({ maxReadBytes: 100_000, maxWriteBytes: 102_400 })
  })
  it('names each field that is out of range', () => {
    const back = fromDraft({ ...toDraft(settings), maxReadKb: '0', maxWriteKb: '1.5', maxSteps: '10001' })
    expect(back.ok).toBe(false)
    if (back.ok) return
    expect(Object.keys(back.errors).sort()).toEqual(['maxReadKb', 'maxSteps', 'maxWriteKb'])
    expect(back.errors.maxSteps).toBe('A whole number from 1 to 10,000.')
  })
  it('refuses more commands than the core keeps', () => {
    const many = Array.from({ length: 501 }, (_, i) => `cmd${i}`).join('\n')
    const back = fromDraft({ ...toDraft(settings), deny: many })
    expect(back.ok ? null : back.errors.deny).toBe('At most 500 commands.')
  })
})

describe('helpers', () => {
  it('rounds bytes to KB', () => {
    expect(bytesToKb(1536)).toBe(2)
    expect(bytesToKb(256 * 1024)).toBe(256)
  })
  it('drops blank lines and repeats', () => {
    expect(parseLines('a\n\n  b  \na\n')).toEqual(['a', 'b'])
    expect(parseLines('')).toEqual([])
  })
})

describe('the model options fields', () => {
  const draft = { numCtx: '', maxNumCtx: '', temperature: '' }
  it('leave the defaults when empty, and take a window and a temperature', () => {
    expect(parseModelOptions(draft)).toEqual({ ok: true, options: {} })
    expect(parseModelOptions({ numCtx: ' 8192 ', maxNumCtx: '65536', temperature: '0.2' })).toEqual({
      ok: true,
      options: { numCtx: 8192, maxNumCtx: 65536, temperature: 0.2 },
    })
  })
  it('say what is wrong with a value out of range', () => {
    const bad = parseModelOptions({ numCtx: '100', maxNumCtx: 'lots', temperature: '3' })
    if (bad.ok) throw new Error('expected errors')
    expect(Object.keys(bad.errors).sort()).toEqual(['maxNumCtx', 'numCtx', 'temperature'])
    expect(bad.errors.numCtx).toMatch(/512/)
    expect(fromDraft({ ...toDraft(settings), temperature: '-1' }).ok).toBe(false)
  })
})

describe('the field table', () => {
  const rows = FIELD_GROUPS.flatMap((g) => g.fields)

  it('has one row for every text field of the draft, and no other', () => {
    const textKeys = Object.keys(toDraft(settings)).filter((k) => k !== 'approvalPolicy' && k !== 'theme')
    expect(rows.map((r) => r.key).sort()).toEqual(textKeys.sort())
  })

  it('has every number row checked: a value out of range is an error on that row', () => {
    for (const row of rows.filter((r) => r.kind === 'number')) {
      const back = fromDraft({ ...toDraft(settings), [row.key]: '99999999999' })
      expect(back.ok ? [] : Object.keys(back.errors)).toEqual([row.key])
    }
  })
})
