import fs from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { openCodeIndexTables, type ParsedRow } from './code-index-tables'
import { openStore } from './store'
import { tempDir } from './testing/helpers'

const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})

function opened() {
  const d = tempDir()
  const store = openStore(d)
  cleanups.push(() => {
    store.close()
    fs.rmSync(d, { recursive: true, force: true })
  })
  return store
}

const row = (path: string, over: Partial<ParsedRow> = {}): ParsedRow => ({
  path,
  hash: `h-${path}`,
  size: 10,
  mtimeMs: 1000,
  version: 3,
  language: 'typescript',
  kind: 'code',
  parseErrors: 0,
  facts: JSON.stringify({ path }),
  idents: '\nalpha:1,4\nbeta:2',
  ...over,
})

describe('the code index tables', () => {
  it('writes a batch in one go, counting row changes (not stat updates) in the generation', () => {
    const store = opened()
    const t = openCodeIndexTables(store, '/p')
    expect(t.generation()).toBe(0)
    t.write([
      { op: 'parsed', row: row('a.ts') },
      { op: 'parsed', row: row('b.ts', { parseErrors: 2 }) },
    ])
    expect(t.generation()).toBe(1)
    t.write([{ op: 'touched', path: 'a.ts', size: 11, mtimeMs: 2000 }])
    expect(t.generation()).toBe(1)
    expect(t.known('a.ts')).toEqual({ hash: 'h-a.ts', size: 11, mtimeMs: 2000, version: 3 })
    expect(t.paths(3).sort()).toEqual(['a.ts', 'b.ts'])
    expect(t.paths(2)).toEqual([])
    expect(t.problems(3)).toEqual([{ path: 'b.ts', kind: 'code', parseErrors: 2 }])
    expect(t.filesWithIdent('alpha').map((r) => r.path)).toEqual(['a.ts', 'b.ts'])
    expect(t.filesWithIdent('alp')).toEqual([])
    t.write([{ op: 'gone', path: 'a.ts' }])
    expect(t.generation()).toBe(2)
    expect(t.facts('a.ts', 3)).toBeUndefined()
    expect(t.facts('b.ts', 3)).toBe(JSON.stringify({ path: 'b.ts' }))
  })

  it('keeps each root to itself, and a memo only for the generation it was made at', () => {
    const store = opened()
    const p = openCodeIndexTables(store, '/p')
    const q = openCodeIndexTables(store, '/q')
    p.write([{ op: 'parsed', row: row('a.ts') }])
    expect(q.paths(3)).toEqual([])
    expect(q.summary(3)).toEqual([])
    expect(p.summary(3)).toEqual([{ language: 'typescript', files: 1, bytes: 10, withErrors: 0, skipped: 0 }])
    p.setMemo('map', p.generation(), 'the map')
    expect(p.memo('map', p.generation())).toBe('the map')
    expect(q.memo('map', p.generation())).toBeUndefined()
    p.remove(['a.ts'])
    expect(p.memo('map', p.generation())).toBeUndefined()
    p.setMeta({ builtAt: 5, fileCount: 0, warning: 'stopped' })
    expect(p.meta()).toEqual({ builtAt: 5, fileCount: 0, warning: 'stopped' })
    expect(q.meta()).toBeUndefined()
  })
})
