import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { MAX_LINE_LENGTH, MAX_PARSE_BYTES, analyzeFile } from './analyze'
import { identLines } from './idents'
import { setGrammarDirForTesting } from './parser'

const analyze = (rel: string, text: string | Buffer) =>
  analyzeFile(rel, Buffer.isBuffer(text) ? text : Buffer.from(text))

describe('analyzeFile: TypeScript', () => {
  it('extracts imports, exports, functions, classes, variables, todos and complexity', async () => {
    const src = [
      "import fs from 'node:fs'",
      "import type { Db } from './db'",
      "import { a, b as c } from '../util'",
      "export { d } from './d'",
      'const lazy = () => import("./lazy")',
      '// TODO: cache this',
      'export interface Shape extends Base { area(): number }',
      'export type Id = string',
      'export class Circle extends Base implements Shape {',
      '  private readonly r = 1',
      '  constructor(private readonly db: Db) { super() }',
      '  async area(scale = 1): Promise<number> {',
      '    if (scale) { for (;;) { return 1 } }',
      '    return 2',
      '  }',
      '  protected static make() {}',
      '}',
      'export async function run(x: number, ...rest: string[]) {}',
      'function local() {} /* FIXME: broken */',
      'export { local }',
      '',
    ].join('\n')
    const { facts, idents } = await analyze('src/a.ts', src)
    expect(facts.kind).toBe('code')
    expect(facts.language).toBe('typescript')
    expect(facts.parseErrors).toBe(0)
    expect(facts.imports).toEqual([
      { source: 'node:fs', names: ['default'], line: 1 },
      { source: './db', names: ['Db'], line: 2, typeOnly: true },
      { source: '../util', names: ['a', 'b'], line: 3 },
      { source: './d', names: ['d'], line: 4 },
      { source: './lazy', names: ['*'], line: 5 },
    ])
    expect(facts.exports.map((e) => e.name)).toEqual(['d', 'Shape', 'Id', 'Circle', 'run', 'local'])
    expect(facts.functions).toEqual([
      { name: 'lazy', params: [], async: false, exported: false, line: 5, endLine: 5 },
      {
        name: 'run',
        params: ['x: number', '...rest: string[]'],
        async: true,
        exported: true,
        line: 18,
        endLine: 18,
      },
      { name: 'local', params: [], async: false, exported: true, line: 19, endLine: 19 },
    ])
    const circle = facts.classes.find((c) => c.name === 'Circle')!
    expect(circle).toMatchObject({
      kind: 'class',
      exported: true,
      extends: ['Base'],
      implements: ['Shape'],
      line: 9,
      endLine: 17,
    })
    expect(circle.methods.map((m) => [m.name, m.async, m.static, m.visibility, m.line, m.endLine])).toEqual([
      ['constructor', false, false, 'public', 11, 11],
      ['area', true, false, 'public', 12, 15],
      ['make', false, true, 'protected', 16, 16],
    ])
    expect(circle.properties.map((p) => [p.name, p.visibility, p.type])).toEqual([
      ['r', 'private', undefined],
      ['db', 'private', 'Db'],
    ])
    expect(facts.classes.find((c) => c.name === 'Shape')).toMatchObject({
      kind: 'interface',
      extends: ['Base'],
    })
    expect(facts.variables).toEqual([{ name: 'Id', kind: 'type', exported: true, line: 8, endLine: 8 }])
    expect(facts.todos).toEqual([
      { line: 6, tag: 'TODO', text: 'cache this' },
      { line: 19, tag: 'FIXME', text: 'broken' },
    ])
    expect(facts.complexity).toEqual({ loc: 19, maxNesting: 2, imports: 5, score: 7.3 })
    // Identifiers in code, not in comments or strings.
    expect(identLines(idents, 'Circle')).toEqual([9])
    expect(identLines(idents, 'cache')).toEqual([])
    expect(identLines(idents, 'Db')).toEqual([2, 11])
  })

  it('parses JSX with the JavaScript grammar and CommonJS requires', async () => {
    const { facts } = await analyze(
      'src/App.jsx',
      "const x = require('./x')\nexport default function App() { return <div>{x}</div> }\n",
    )
    expect(facts.language).toBe('javascript')
    expect(facts.parseErrors).toBe(0)
    expect(facts.imports).toEqual([{ source: './x', names: ['*'], line: 1 }])
    expect(facts.functions.map((f) => f.name)).toEqual(['App'])
  })
})

describe('analyzeFile: other languages', () => {
  it('Python: imports, classes with self attributes, __main__ entry', async () => {
    const src = [
      'import os, sys as system',
      'from ..pkg.mod import thing',
      'class Foo(Base):',
      '    count = 0',
      '    def __init__(self, a):',
      '        self.a = a',
      '    @staticmethod',
      '    def make(x, y=1): pass',
      '    async def _go(self): pass',
      'async def main(argv): pass',
      'if __name__ == "__main__":',
      '    main()',
    ].join('\n')
    const { facts } = await analyze('app/main.py', src)
    expect(facts.imports).toEqual([
      { source: 'os', names: ['*'], line: 1 },
      { source: 'sys', names: ['*'], line: 1 },
      { source: 'pkg.mod', names: ['thing'], line: 2, level: 2 },
    ])
    expect(facts.entry).toBe(true)
    expect(facts.functions).toEqual([
      { name: 'main', params: ['argv'], async: true, exported: true, line: 10, endLine: 10 },
    ])
    const foo = facts.classes[0]
    expect(foo.extends).toEqual(['Base'])
    expect(foo.methods.map((m) => [m.name, m.static, m.visibility, m.async])).toEqual([
      ['__init__', false, 'public', false],
      ['make', true, 'public', false],
      ['_go', false, 'protected', true],
    ])
    expect(foo.properties.map((p) => [p.name, p.static])).toEqual([
      ['count', true],
      ['a', false],
    ])
  })

  it('Go: package, imports, structs with methods, func main', async () => {
    const src =
      'package main\nimport (\n  "fmt"\n  u "example.com/me/proj/util"\n)\n' +
      'type Server struct { Base; Name string }\nfunc (s *Server) Start(port int) error { return nil }\nfunc main() { fmt.Println(u.A) }\n'
    const { facts } = await analyze('cmd/main.go', src)
    expect(facts.package).toBe('main')
    expect(facts.entry).toBe(true)
    expect(facts.imports.map((i) => i.source)).toEqual(['fmt', 'example.com/me/proj/util'])
    expect(facts.classes[0]).toMatchObject({
      name: 'Server',
      kind: 'struct',
      exported: true,
      extends: ['Base'],
    })
    expect(facts.classes[0].methods.map((m) => m.name)).toEqual(['Start'])
  })

  it('Rust: use, mod, impl blocks and traits', async () => {
    const src =
      'use crate::config::{Config, load};\nmod parser;\npub struct Engine { pub name: String }\n' +
      'pub trait Run { fn run(&self) -> u32; }\nimpl Run for Engine { fn run(&self) -> u32 { 1 } }\nfn main() {}\n'
    const { facts } = await analyze('src/main.rs', src)
    expect(facts.imports).toEqual([
      { source: 'crate::config', names: ['Config', 'load'], line: 1 },
      { source: 'parser', names: ['*'], line: 2, mod: true },
    ])
    expect(facts.classes.map((c) => [c.name, c.kind, c.implements, c.methods.map((m) => m.name)])).toEqual([
      ['Engine', 'struct', ['Run'], ['run']],
      ['Run', 'trait', [], ['run']],
    ])
    expect(facts.entry).toBe(true)
  })

  it('Java: package, imports, class with fields and static main', async () => {
    const src =
      'package com.acme;\nimport java.util.List;\npublic class App extends Base implements Runnable {\n' +
      '  private int n;\n  public static void main(String[] args) {}\n}\n'
    const { facts } = await analyze('src/com/acme/App.java', src)
    expect(facts.package).toBe('com.acme')
    expect(facts.imports).toEqual([{ source: 'java.util.List', names: ['List'], line: 2 }])
    expect(facts.classes[0]).toMatchObject({
      name: 'App',
      extends: ['Base'],
      implements: ['Runnable'],
      exported: true,
    })
    expect(facts.entry).toBe(true)
  })

  it('configuration: package.json, tsconfig with comments, YAML keys, go.mod', async () => {
    const pkg = await analyze(
      'package.json',
      JSON.stringify({ name: 'app', main: './lib/index.js', bin: { app: 'bin/cli.js' } }),
    )
    expect(pkg.facts.config).toEqual({
      format: 'json',
      keys: ['name', 'main', 'bin'],
      packageName: 'app',
      entryFiles: ['lib/index.js', 'bin/cli.js'],
    })
    const ts = await analyze(
      'tsconfig.json',
      '{ // comment\n "compilerOptions": { "baseUrl": ".", "paths": { "@/*": ["src/*"] }, }, }',
    )
    expect(ts.facts.config).toMatchObject({ baseUrl: '.', paths: { '@/*': ['src/*'] } })
    const yaml = await analyze('ci.yml', '# c\nname: ci\non:\n  push: {}\njobs:\n  build: x\n')
    expect(yaml.facts.config).toEqual({ format: 'yaml', keys: ['name', 'on', 'jobs'] })
    const mod = await analyze('go.mod', 'module example.com/me/proj\n\ngo 1.22\n')
    expect(mod.facts.config).toEqual({ format: 'go.mod', keys: [], goModule: 'example.com/me/proj' })
    const bad = await analyze('broken.json', '{ "a": ')
    expect(bad.facts).toMatchObject({ kind: 'config', parseErrors: 1, note: 'not valid JSON' })
  })
})

describe('analyzeFile: bad input', () => {
  afterEach(() => setGrammarDirForTesting(undefined))

  it('a syntax error marks the file and keeps what the parser read', async () => {
    const { facts } = await analyze('a.ts', 'export function ok() {}\nlet x = (\nexport class Later {}\n')
    expect(facts.kind).toBe('code')
    expect(facts.parseErrors).toBeGreaterThan(0)
    expect(facts.functions.map((f) => f.name)).toContain('ok')
  })

  it('binary files get metadata only', async () => {
    const { facts, idents } = await analyze('img.ts', Buffer.from([0x89, 0x50, 0x00, 0x01, 0x02]))
    expect(facts).toMatchObject({ kind: 'binary', size: 5, imports: [], functions: [] })
    expect(idents).toBe('')
  })

  it('minified and oversized files are skipped with a note', async () => {
    const minified = 'var a=1;'.repeat(MAX_LINE_LENGTH)
    const m = await analyze('bundle.min.js', minified)
    expect(m.facts.kind).toBe('skipped')
    expect(m.facts.note).toMatch(/minified/)
    const big = await analyze('huge.js', Buffer.alloc(MAX_PARSE_BYTES + 1, 'a'))
    expect(big.facts.kind).toBe('skipped')
    expect(big.facts.note).toMatch(/parse limit/)
  })

  it('deep nesting does not overflow the stack', async () => {
    const depth = 3000
    const src = 'function f(x) {\n' + 'if (x) {\n'.repeat(depth) + '}\n'.repeat(depth) + '}\n'
    const { facts } = await analyze('deep.js', src)
    expect(facts.functions.map((f) => f.name)).toEqual(['f'])
    expect(facts.complexity.maxNesting).toBe(depth)
  })

  it('non-UTF-8 bytes are decoded leniently and flagged', async () => {
    const data = Buffer.concat([Buffer.from('export const caf'), Buffer.from([0xe9]), Buffer.from(' = 1\n')])
    const { facts } = await analyze('latin1.ts', data)
    expect(facts.invalidUtf8).toBe(true)
    expect(facts.kind).toBe('code')
    expect(facts.variables).toHaveLength(1)
  })

  it('a grammar that fails to load marks its files skipped', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-grammar-'))
    fs.writeFileSync(path.join(dir, 'tree-sitter-go.wasm'), 'not wasm')
    setGrammarDirForTesting(dir)
    const { facts } = await analyze('main.go', 'package main\n')
    expect(facts.kind).toBe('skipped')
    expect(facts.note).toMatch(/^not parsed: the go grammar failed to load/)
    fs.rmSync(dir, { recursive: true, force: true })
  })
})
