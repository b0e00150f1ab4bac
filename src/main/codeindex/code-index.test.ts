import { databaseOf } from '../store/handle'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { createCodeIndex, type BuildProgress } from './code-index'
import { indexedProject } from './test-support'

const TS_PROJECT = {
  'package.json': JSON.stringify({ name: 'demo', main: 'src/main.ts' }),
  'tsconfig.json': '{ "compilerOptions": { "baseUrl": ".", "paths": { "@lib/*": ["src/lib/*"] } } }',
  'src/main.ts':
    "import { save } from './store'\nimport { fmt } from '@lib/fmt'\nimport os from 'node:os'\nimport z from 'zod'\nsave(fmt(os.EOL))\n",
  'src/store.ts':
    "import { fmt } from './lib/fmt'\nexport class Store { save(x: string) { return fmt(x) } }\nexport function save(x: string) { return new Store().save(x) }\n",
  'src/lib/fmt.ts': 'export function fmt(x: string): string {\n  // TODO: locale\n  return x.trim()\n}\n',
  'src/lib/index.ts': "export * from './fmt'\n",
  'src/cli.ts': "import { fmt } from './lib'\nconsole.log(fmt('x'))\n",
  'scripts/unused.ts': 'export const nothing = 1\n',
  '.gitignore': 'generated/\n',
  'generated/out.ts': 'export const ignored = 1\n',
  'node_modules/pkg/index.js': 'module.exports = 1\n',
  'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00]),
}

describe('createCodeIndex', () => {
  it('indexes the files the sandbox lists and resolves the dependency graph', async () => {
    const { index } = await indexedProject(TS_PROJECT)
    const report = await index.build()
    expect(report).toMatchObject({
      files: 10,
      parsed: 10,
      unchanged: 0,
      removed: 0,
      errors: [],
      grammarErrors: [],
    })
    expect(report.skipped).toEqual([{ path: 'logo.png', reason: 'binary file: metadata only' }])
    expect(index.paths()).toEqual([
      '.gitignore',
      'logo.png',
      'package.json',
      'scripts/unused.ts',
      'src/cli.ts',
      'src/lib/fmt.ts',
      'src/lib/index.ts',
      'src/main.ts',
      'src/store.ts',
      'tsconfig.json',
    ])
    expect(index.dependencies('src/main.ts').map((d) => [d.source, d.kind, d.targets])).toEqual([
      ['./store', 'internal', ['src/store.ts']],
      ['@lib/fmt', 'internal', ['src/lib/fmt.ts']],
      ['node:os', 'builtin', []],
      ['zod', 'external', []],
    ])
    expect(index.dependents('src/lib/fmt.ts')).toEqual(['src/lib/index.ts', 'src/main.ts', 'src/store.ts'])
    expect(index.hubs(2)).toEqual([
      { path: 'src/lib/fmt.ts', dependents: 3 },
      { path: 'src/lib/index.ts', dependents: 1 },
    ])
    expect(index.entryPoints()).toEqual([
      { path: 'src/main.ts', reason: 'named in package.json' },
      { path: 'src/cli.ts', reason: 'imports project files and nothing imports it' },
    ])
    expect(index.definitions('save').map((d) => [d.path, d.kind, d.parent])).toEqual([
      ['src/store.ts', 'method', 'Store'],
      ['src/store.ts', 'function', undefined],
    ])
    expect(index.definitions('Store.save')).toHaveLength(1)
    expect(index.references('fmt', 100)).toEqual({
      references: [
        { path: 'src/cli.ts', line: 1 },
        { path: 'src/cli.ts', line: 2 },
        { path: 'src/main.ts', line: 2 },
        { path: 'src/main.ts', line: 5 },
        { path: 'src/store.ts', line: 1 },
        { path: 'src/store.ts', line: 2 },
      ],
      truncated: false,
    })
    expect(index.references('fmt', 2).truncated).toBe(true)
    const ranked = index.rankedSymbols(3)
    expect(ranked[0]).toMatchObject({ name: 'fmt', path: 'src/lib/fmt.ts', references: 3 })
    const graph = index.graph()
    expect(graph.edges).toContainEqual({ from: 'src/main.ts', to: 'src/store.ts' })
    expect(graph.referenceCounts.get('fmt')).toBe(3)
    const ranks = new Map(graph.files.map((f) => [f.path, f.rank]))
    expect(ranks.get('src/lib/fmt.ts')!).toBeGreaterThan(ranks.get('src/main.ts')!)
    expect(index.status()).toMatchObject({
      files: 10,
      filesWithParseErrors: 0,
      skippedFiles: 1,
      grammarErrors: [],
    })
  })

  it('re-parses only changed files, across index instances on the same database', async () => {
    const fixture = await indexedProject(TS_PROJECT)
    await fixture.index.build()
    const again = await fixture.index.build()
    expect(again).toMatchObject({ parsed: 0, unchanged: 10 })

    fs.appendFileSync(path.join(fixture.root, 'src/store.ts'), 'export const added = 1\n')
    fs.rmSync(path.join(fixture.root, 'scripts/unused.ts'))
    const second = createCodeIndex(fixture.store, {
      root: fixture.root,
      sandbox: fixture.sandbox,
      workers: 1,
    })
    const report = await second.build()
    expect(report).toMatchObject({ files: 9, parsed: 1, unchanged: 8, removed: 1 })
    expect(second.definitions('added').map((d) => d.path)).toEqual(['src/store.ts'])
    expect(second.dependents('src/lib/fmt.ts')).toEqual(['src/lib/index.ts', 'src/main.ts', 'src/store.ts'])
  })

  it('update() re-reads named files, drops deleted ones, and keeps the graph current', async () => {
    const { index, root } = await indexedProject(TS_PROJECT)
    await index.build()
    const changes: string[][] = []
    index.onChange((c) => changes.push([...c]))
    expect(index.dependents('src/store.ts')).toEqual(['src/main.ts'])

    fs.writeFileSync(path.join(root, 'src/cli.ts'), "import { save } from './store'\nsave('y')\n")
    const first = await index.update(['src/cli.ts'])
    expect(first).toEqual({ parsed: ['src/cli.ts'], removed: [], unchanged: [], errors: [] })
    expect(index.dependents('src/store.ts')).toEqual(['src/cli.ts', 'src/main.ts'])
    expect(index.dependents('src/lib/index.ts')).toEqual([])

    fs.rmSync(path.join(root, 'src/store.ts'))
    fs.writeFileSync(path.join(root, 'src/new.ts'), "import { fmt } from './lib/fmt'\n")
    const second = await index.update([
      path.join(root, 'src/store.ts'),
      'src/new.ts',
      'generated/out.ts',
      '../outside.ts',
    ])
    expect(second).toEqual({ parsed: ['src/new.ts'], removed: ['src/store.ts'], unchanged: [], errors: [] })
    expect(index.dependencies('src/main.ts')[0]).toMatchObject({
      source: './store',
      kind: 'internal',
      targets: [],
    })
    expect(index.dependents('src/lib/fmt.ts')).toEqual(['src/lib/index.ts', 'src/main.ts', 'src/new.ts'])
    expect(index.file('generated/out.ts')).toBeUndefined()
    expect(changes).toEqual([['src/cli.ts'], ['src/store.ts', 'src/new.ts']])
  })

  it('resolves Python packages, Go packages through go.mod, Rust modules and Java imports', async () => {
    const { index } = await indexedProject({
      'app/__init__.py': '',
      'app/main.py': 'from app.util import helper\nfrom . import models\nimport os\nimport requests\n',
      'app/util.py': 'def helper(): pass\n',
      'app/models.py': 'class User: pass\n',
      'go.mod': 'module example.com/demo\n',
      'cmd/main.go':
        'package main\nimport "example.com/demo/internal/db"\nimport "fmt"\nfunc main() { fmt.Println(db.Open()) }\n',
      'internal/db/db.go': 'package db\nfunc Open() int { return 1 }\n',
      'internal/db/db_test.go': 'package db\n',
      'Cargo.toml': '[package]\nname = "demo"\n',
      'src/main.rs': 'mod config;\nuse crate::config::load;\nfn main() { load(); }\n',
      'src/config.rs': 'pub fn load() {}\n',
      'java/com/acme/App.java': 'package com.acme;\nimport com.acme.util.Helper;\npublic class App {}\n',
      'java/com/acme/util/Helper.java': 'package com.acme.util;\npublic class Helper {}\n',
    })
    await index.build()
    const deps = (p: string) => index.dependencies(p).map((d) => [d.source, d.kind, d.targets])
    expect(deps('app/main.py')).toEqual([
      ['app.util', 'internal', ['app/util.py']],
      ['', 'internal', ['app/models.py']],
      ['os', 'builtin', []],
      ['requests', 'external', []],
    ])
    expect(deps('cmd/main.go')).toEqual([
      ['example.com/demo/internal/db', 'internal', ['internal/db/db.go']],
      ['fmt', 'builtin', []],
    ])
    expect(deps('src/main.rs')).toEqual([
      ['config', 'internal', ['src/config.rs']],
      ['crate::config::load', 'internal', ['src/config.rs']],
    ])
    expect(deps('java/com/acme/App.java')).toEqual([
      ['com.acme.util.Helper', 'internal', ['java/com/acme/util/Helper.java']],
    ])
    expect(index.entryPoints()).toEqual([
      { path: 'cmd/main.go', reason: 'package main with func main' },
      { path: 'src/main.rs', reason: 'defines main' },
      { path: 'app/main.py', reason: 'imports project files and nothing imports it' },
      { path: 'java/com/acme/App.java', reason: 'imports project files and nothing imports it' },
    ])
  })

  it('indexes every file, however many, reporting progress, and can index a subfolder instead', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 12; i++) files[`pkg${i % 2}/f${i}.ts`] = `export const v${i} = ${i}\n`
    const big = await indexedProject(files)
    const seen: BuildProgress[] = []
    const report = await big.index.build({ onProgress: (p) => seen.push(p) })
    expect(report).toMatchObject({ files: 12, parsed: 12, aborted: false, warning: undefined })
    expect(seen.map((p) => p.phase).filter((p, i, all) => all.indexOf(p) === i)).toEqual([
      'listing',
      'indexing',
      'done',
    ])
    expect(seen.at(-1)).toEqual({ phase: 'done', done: 12, total: 12 })
    expect(big.index.building()).toBeUndefined()

    const sub = createCodeIndex(big.store, {
      root: big.root,
      sandbox: big.sandbox,
      prefix: 'pkg1',
      workers: 1,
    })
    const subReport = await sub.build()
    expect(subReport).toMatchObject({ files: 6, warning: undefined })
    expect(sub.paths().every((p) => p.startsWith('pkg1/'))).toBe(true)
    // The subfolder index keeps its own rows: the whole-project index is untouched.
    expect((await big.index.build()).unchanged).toBe(12)
  })

  it('starts warm from the stored rows: no stored facts are parsed until a file or the graph needs them', async () => {
    const first = await indexedProject(TS_PROJECT)
    await first.index.build()
    // A corrupt facts column makes any parse of that file throw: the warm paths below must not touch it.
    databaseOf(first.store)
      .prepare("UPDATE code_files SET facts = '{corrupt' WHERE path = 'src/store.ts'")
      .run()
    const { languages, bytes } = first.index.status()
    const warm = createCodeIndex(first.store, { root: first.root, sandbox: first.sandbox, workers: 1 })
    expect(warm.complete()).toBe(true)
    expect(warm.paths()).toEqual(first.index.paths())
    expect(warm.status()).toMatchObject({ files: 10, skippedFiles: 1, languages, bytes })
    expect(warm.file('src/main.ts')?.imports.map((i) => i.source)).toEqual([
      './store',
      '@lib/fmt',
      'node:os',
      'zod',
    ])
    const again = await warm.build()
    expect(again).toMatchObject({ files: 10, parsed: 0, unchanged: 10, aborted: false })
    // The problems of unchanged files still come back, from the stored rows.
    expect(again.skipped).toEqual([{ path: 'logo.png', reason: 'binary file: metadata only' }])
    expect(() => warm.file('src/store.ts')).toThrow(SyntaxError)
    expect(() => warm.dependents('src/lib/fmt.ts')).toThrow(SyntaxError)

    // A fresh process over intact rows answers graph queries as the one that built them.
    fs.appendFileSync(path.join(first.root, 'src/store.ts'), '\n')
    await first.index.update(['src/store.ts'])
    const fresh = createCodeIndex(first.store, { root: first.root, sandbox: first.sandbox, workers: 1 })
    expect(fresh.dependents('src/lib/fmt.ts')).toEqual(['src/lib/index.ts', 'src/main.ts', 'src/store.ts'])
    expect(fresh.rankedSymbols(3)).toEqual(first.index.rankedSymbols(3))
  })

  it('parses again what an older extractor stored, and forgets stored files that are gone', async () => {
    const first = await indexedProject(TS_PROJECT)
    await first.index.build()
    databaseOf(first.store)
      .prepare("UPDATE code_files SET version = version - 1 WHERE path = 'src/cli.ts'")
      .run()
    fs.rmSync(path.join(first.root, 'scripts/unused.ts'))
    const next = createCodeIndex(first.store, { root: first.root, sandbox: first.sandbox, workers: 1 })
    // An older row is not served before the build has parsed it again.
    expect(next.paths()).not.toContain('src/cli.ts')
    expect(next.file('src/cli.ts')).toBeUndefined()
    const report = await next.build()
    expect(report).toMatchObject({ files: 9, parsed: 1, unchanged: 8, removed: 1 })
    expect(next.paths()).toContain('src/cli.ts')
    expect(next.paths()).not.toContain('scripts/unused.ts')
    expect(next.dependencies('src/cli.ts')[0].targets).toEqual(['src/lib/index.ts'])
    expect(next.status().files).toBe(9)
  })

  it('keeps what a stopped build indexed, and the next build carries on from there', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 150; i++)
      files[`src/f${String(i).padStart(3, '0')}.ts`] = `export function f${i}() {}\n`
    const fixture = await indexedProject(files)
    const stop = new AbortController()
    let during: number | undefined
    const first = await fixture.index.build({
      signal: stop.signal,
      onProgress: (p) => {
        if (p.phase === 'indexing' && p.done >= 48 && !stop.signal.aborted) {
          during = fixture.index.building()?.done
          stop.abort()
        }
      },
    })
    expect(first.aborted).toBe(true)
    expect(during).toBeGreaterThanOrEqual(48)
    expect(first.files).toBeGreaterThanOrEqual(48)
    expect(first.files).toBeLessThan(150)
    expect(first.warning).toMatch(/^The code index covers \d+ of 150 files/)
    // Incomplete, here and for a new process over the same store, until a build finishes.
    expect(fixture.index.complete()).toBe(false)
    const other = createCodeIndex(fixture.store, { root: fixture.root, sandbox: fixture.sandbox })
    expect(other.complete()).toBe(false)
    // What was indexed answers queries, and is stored: the next build parses only the rest.
    expect(fixture.index.definitions('f0')).toHaveLength(1)
    const second = await fixture.index.build()
    expect(second).toMatchObject({
      files: 150,
      parsed: 150 - first.files,
      unchanged: first.files,
      aborted: false,
    })
    expect(second.warning).toBeUndefined()
    expect(fixture.index.complete()).toBe(true)
  })

  it('stays whole when a check of a finished index is stopped, and not when a new file was left unparsed', async () => {
    const fixture = await indexedProject({ 'a.ts': 'export const a = 1\n', 'b.ts': 'export const b = 2\n' })
    await fixture.index.build()
    // Stopped at the first report of the given phase with at least `done` files settled.
    const stopAt = async (done: number) => {
      const stop = new AbortController()
      return fixture.index.build({
        signal: stop.signal,
        onProgress: (p) => p.phase === 'indexing' && p.done >= done && stop.abort(),
      })
    }
    const other = () => createCodeIndex(fixture.store, { root: fixture.root, sandbox: fixture.sandbox })
    // Every session stops its build at exit; a stopped check must not make the next
    // session treat the index as partial (waiting for it, and mapping it again):
    // stopped before the stored rows met the listing, and after.
    for (const done of [0, 2]) {
      expect(await stopAt(done)).toMatchObject({ aborted: true, warning: undefined })
      expect(fixture.index.complete()).toBe(true)
      expect(other().complete()).toBe(true)
    }

    // A new file, stopped once the check has seen it and before it is parsed: partial.
    fs.writeFileSync(path.join(fixture.root, 'c.ts'), 'export const c = 3\n')
    const stopped = await stopAt(2)
    expect(stopped.warning).toMatch(/^The code index covers 2 of 3 files/)
    expect(fixture.index.complete()).toBe(false)
    expect(other().complete()).toBe(false)
    // A stop that learns nothing leaves it partial, with its warning.
    expect(await stopAt(0)).toMatchObject({ aborted: true, warning: stopped.warning })
    expect(fixture.index.complete()).toBe(false)
  })

  it('checks against a listing the caller vouches for without listing again, and lists when it has none', async () => {
    const fixture = await indexedProject({ 'a.ts': 'export const a = 1\n', 'b.ts': 'export const b = 2\n' })
    await fixture.index.build()
    const listFiles = vi.spyOn(fixture.sandbox, 'listFiles')
    // A vouched listing without b.ts: b.ts is gone from the index, and nothing was listed.
    const report = await fixture.index.build({ listing: async () => ({ paths: ['a.ts'] }) })
    expect(report).toMatchObject({ files: 1, removed: 1, aborted: false })
    expect(listFiles).not.toHaveBeenCalled()
    expect(fixture.index.paths()).toEqual(['a.ts'])
    // None to give: the build lists, and finds b.ts again.
    expect(await fixture.index.build({ listing: async () => undefined })).toMatchObject({
      files: 2,
      parsed: 1,
    })
    expect(listFiles).toHaveBeenCalledTimes(1)
  })

  it('keeps the stored index when a build is stopped before its listing is complete', async () => {
    const fixture = await indexedProject({ 'a.ts': 'export const a = 1\n', 'b.ts': 'export const b = 2\n' })
    await fixture.index.build()
    const stop = new AbortController()
    const stopped = fixture.index.build({
      signal: stop.signal,
      onProgress: (p) => p.phase === 'listing' && stop.abort(),
    })
    expect(await stopped).toMatchObject({ aborted: true, removed: 0 })
    expect(fixture.index.paths()).toEqual(['a.ts', 'b.ts'])
    // Nothing was dropped from the database either: a fresh build finds both unchanged.
    expect(await fixture.index.build()).toMatchObject({ files: 2, parsed: 0, unchanged: 2 })
  })

  it('lets a second caller join a running build, which stops only when every caller stops it', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 60; i++) files[`f${i}.ts`] = `export const v${i} = ${i}\n`
    const fixture = await indexedProject(files)
    const a = new AbortController()
    const first = fixture.index.build({ signal: a.signal })
    const second = fixture.index.build()
    expect(second).toBe(first)
    a.abort()
    expect(await first).toMatchObject({ files: 60, aborted: false })
  })

  it('survives a symlink loop, a file deleted while indexing, and reports grammar-less files', async () => {
    const fixture = await indexedProject({
      'a.ts': 'export const a = 1\n',
      'dir/b.ts': 'export const b = 2\n',
    })
    fs.symlinkSync('..', path.join(fixture.root, 'dir/loop'))
    fs.symlinkSync(path.join(fixture.root, 'a.ts'), path.join(fixture.root, 'link.ts'))
    // A listing that names a file which is gone by the time it is read.
    const sandbox = {
      ...fixture.sandbox,
      listFiles: async () => ({
        files: [...(await fixture.sandbox.listFiles()).files, 'vanished.ts'],
        truncated: false,
        total: 3,
      }),
    }
    const index = createCodeIndex(fixture.store, { root: fixture.root, sandbox, workers: 1 })
    const report = await index.build()
    expect(index.paths()).toEqual(['a.ts', 'dir/b.ts'])
    expect(report).toMatchObject({ files: 2, parsed: 2, errors: [] })
  })
})
