import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openStore } from '../store/store'
import type { Store } from '../store/types'
import { DEFAULT_COMMAND_SETTINGS } from '../sandboxing/settings'
import { commandSettings, readSettings } from './settings'

let dir: string
let store: Store

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-settings-'))
  store = openStore(dir)
})

afterEach(() => {
  store.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

describe('commandSettings: the one reader of the stored commands setting', () => {
  it('reads what a host stored, trimming and dropping empty entries', () => {
    store.setSetting('commands', JSON.stringify({ allow: [' npm test ', ''], deny: ['rm'], timeoutS: 30 }))
    const heard: string[] = []
    const s = commandSettings(store, (m) => heard.push(m))
    expect(s.allow).toEqual(['npm test'])
    expect(s.deny).toEqual(['rm'])
    expect(s.timeoutS).toBe(30)
    expect(heard).toEqual([])
  })

  it('gives the defaults, without a warning, when nothing is stored', () => {
    const heard: string[] = []
    const s = commandSettings(store, (m) => heard.push(m))
    expect(s.network).toBe(DEFAULT_COMMAND_SETTINGS.network)
    expect(s.allow).toEqual([])
    expect(heard).toEqual([])
  })

  it.each([
    ['broken JSON', '{"allow": ['],
    ['a JSON array', '["npm test"]'],
    ['a JSON string', '"npm test"'],
  ])('warns and falls back to the defaults on %s', (_what, text) => {
    store.setSetting('commands', text)
    const heard: string[] = []
    const s = commandSettings(store, (m) => heard.push(m))
    expect(s.allow).toEqual([])
    expect(s.sandbox).toBe(DEFAULT_COMMAND_SETTINGS.sandbox)
    expect(heard).toEqual(['the stored "commands" setting is not a valid JSON object; using the defaults.'])
    // The app's settings read the same lists, and a broken value breaks nothing there either.
    expect(readSettings(store).commands).toEqual({ allow: [], deny: [] })
  })
})
