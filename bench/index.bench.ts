import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import ts from 'typescript'
import { createCodeIndex } from '../src/main/codeindex/code-index'
import { buildRepoMap } from '../src/main/context/repo-map'
import { countTokens } from 'gpt-tokenizer'
import { defaultWorkerCount } from '../src/main/codeindex/pool'
import { createSandbox } from '../src/main/containment/sandbox'
import { openStore } from '../src/main/store/store'
import { prng } from './tree'
import { MB, compare, gc, isMain, log, median, memory, report, since, timed, type BenchRow } from './util'

/*
 * The code index against TypeScript's own parser on a generated 5,000-file
 * TypeScript project (BENCH_INDEX_FILES to change it): realistic modules with
 * imports between folders (a few hubs, like a real utils/), interfaces, classes
 * with methods, functions, TODOs and nested control flow.
 *
 * - cold index: createCodeIndex(...).build() into an empty database, with the
 *   worker pool (one thread per core), vs reading every file and running
 *   ts.createSourceFile on it in this thread (the heavier route the issue names);
 * - re-index after one file changes: index.update([file]) plus the first query
 *   that needs the graph, vs ts.createSourceFile of that one file;
 * - memory: heap + external growth while the built index is held, vs holding
 *   every file's TypeScript AST.
 */

const GENERATOR_VERSION = 1
const RUNS = 3
const UPDATE_RUNS = 9

const WORDS =
  'user item list map node tree load save parse read write query cache store event state view model route token buffer stream index field value count size path file config option handler client server request response session record entry batch queue task job worker timer order price account report layout style theme color frame image invoice payment cart product search filter sort page chunk block range window panel'.split(
    ' ',
  )
const AREAS =
  'components utils services models hooks api core lib handlers views adapters schema routes jobs db'.split(
    ' ',
  )
const cap = (w: string) => w[0].toUpperCase() + w.slice(1)

/** A deterministic TypeScript project of `count` files; cached in the temp folder. */
export function ensureTsRepo(count: number): { root: string; files: string[] } {
  const root = path.join(os.tmpdir(), `stepwise-bench-ts-v${GENERATOR_VERSION}-${count}`)
  const marker = `${root}.complete.json`
  if (fs.existsSync(marker) && fs.existsSync(root))
    return { root, files: JSON.parse(fs.readFileSync(marker, 'utf8')) as string[] }
  fs.rmSync(root, { recursive: true, force: true })
  const files = generateTsRepo(root, count)
  fs.writeFileSync(marker, JSON.stringify(files))
  return { root, files }
}

function generateTsRepo(root: string, count: number): string[] {
  const rnd = prng(0x1dec5)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]
  const files = Array.from({ length: count }, (_, i) => {
    const group = Math.floor(i / (AREAS.length * 20))
    return `src/${AREAS[i % AREAS.length]}/g${group}/${pick(WORDS)}${cap(pick(WORDS))}${i}.ts`
  })
  const stem = (f: string) => path.posix.basename(f, '.ts')
  const names = files.map((f, i) => ({
    cls: cap(stem(f).replace(/\d+$/, '')) + 'Service' + i,
    fn: 'compute' + cap(stem(f)),
  }))
  for (let i = 0; i < count; i++) {
    const file = files[i]
    const deps = new Set<number>()
    // Low-numbered files are imported most: hubs, as in a real project.
    for (let d = 1 + Math.floor(rnd() * 6); d > 0 && i > 0; d--)
      deps.add(Math.floor(Math.pow(rnd(), 2.5) * i))
    const lines = [`import path from 'node:path'`]
    if (rnd() < 0.4) lines.push(`import { z } from 'zod'`)
    for (const d of deps) {
      let rel = path.posix.relative(path.posix.dirname(file), files[d].replace(/\.ts$/, ''))
      if (!rel.startsWith('.')) rel = './' + rel
      lines.push(`import { ${names[d].cls}, ${names[d].fn} } from '${rel}'`)
    }
    lines.push('')
    if (rnd() < 0.3) lines.push(`// TODO: split ${pick(WORDS)} handling out of this module`)
    const cls = names[i].cls
    lines.push(`export interface ${cls}Options {`)
    for (let f = 3 + Math.floor(rnd() * 4); f > 0; f--)
      lines.push(
        `  ${pick(WORDS)}${cap(pick(WORDS))}${f}?: ${pick(['string', 'number', 'boolean', 'string[]'])}`,
      )
    lines.push('}', '', `export class ${cls} {`, '  private readonly cache = new Map<string, number>()')
    lines.push('  protected count = 0', `  constructor(private readonly options: ${cls}Options = {}) {}`, '')
    for (let m = 0, methods = 2 + Math.floor(rnd() * 5); m < methods; m++) {
      const isAsync = rnd() < 0.4
      const name = `${pick(['load', 'save', 'find', 'update', 'render', 'sync'])}${cap(pick(WORDS))}${m}`
      lines.push(
        `  ${m % 3 === 2 ? 'private ' : ''}${isAsync ? 'async ' : ''}${name}(key: string, limit = ${m + 1}): ${isAsync ? 'Promise<number>' : 'number'} {`,
        '    const started = Date.now()',
        '    let total = this.cache.get(key) ?? 0',
        '    for (let i = 0; i < limit; i++) {',
        '      if (total > i * 2) {',
        '        total -= localOffset(i)',
        '      } else {',
        '        total += path.basename(key).length',
        '      }',
        '    }',
      )
      for (const d of [...deps].slice(0, 2)) lines.push(`    total += ${names[d].fn}(total, key)`)
      if (rnd() < 0.1)
        lines.push(`    // FIXME: ${pick(WORDS)} is counted twice when the ${pick(WORDS)} is empty`)
      lines.push('    this.count++', '    return total + (Date.now() - started)', '  }', '')
    }
    lines.push('}', '', 'function localOffset(n: number): number {', '  return n % 7', '}', '')
    lines.push(
      `export function ${names[i].fn}(value: number, label: string): number {`,
      "  const parts = label.split('/').filter((p) => p.length > 0)",
      '  switch (parts.length) {',
      '    case 0:',
      '      return value',
      '    default:',
      '      return parts.reduce((acc, p) => acc + p.length, value)',
      '  }',
      '}',
      '',
      `export const ${stem(file).replace(/\d+$/, '')}Defaults${i} = { limit: ${Math.floor(rnd() * 100)}, label: '${pick(WORDS)}' }`,
    )
    const abs = path.join(root, file)
    fs.mkdirSync(path.dirname(abs), { recursive: true })
    fs.writeFileSync(abs, lines.join('\n') + '\n')
  }
  return files
}

function tsParseAll(root: string, files: readonly string[]): ts.SourceFile[] {
  return files.map((f) =>
    ts.createSourceFile(f, fs.readFileSync(path.join(root, f), 'utf8'), ts.ScriptTarget.Latest, true),
  )
}

async function coldIndex(root: string, workers: number) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-bench-index-data-'))
  const store = openStore(dataDir)
  try {
    const sandbox = await createSandbox(root)
    const index = createCodeIndex(store, { root: sandbox.root, sandbox, workers })
    const built = await index.build()
    return built
  } finally {
    store.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

export async function benchIndex(): Promise<BenchRow[]> {
  const count = Number(process.env.BENCH_INDEX_FILES ?? 5000)
  const { root, files } = ensureTsRepo(count)
  const bytes = files.reduce((n, f) => n + fs.statSync(path.join(root, f)).size, 0)
  const workers = defaultWorkerCount()
  log(
    `project: ${files.length} TypeScript files, ${(bytes / 1e6).toFixed(1)} MB at ${root}; ${workers} parse workers`,
  )

  // Memory and re-indexing on one long-lived index.
  gc()
  const before = memory()
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-bench-index-data-'))
  const store = openStore(dataDir)
  const sandbox = await createSandbox(root)
  const index = createCodeIndex(store, { root: sandbox.root, sandbox, workers })
  await index.build()
  index.hubs(1)
  gc()
  const held = memory()
  const indexMb = (held.heapUsed + held.external - before.heapUsed - before.external) / MB
  const asts = tsParseAll(root, files)
  gc()
  const withAsts = memory()
  const astMb = (withAsts.heapUsed + withAsts.external - held.heapUsed - held.external) / MB
  const rssMb = (held.rss - before.rss) / MB
  log(
    `memory: index ${indexMb.toFixed(1)} MB held (rss +${rssMb.toFixed(0)} MB); ${asts.length} TypeScript ASTs ${astMb.toFixed(1)} MB`,
  )
  asts.length = 0

  // The repo map at its largest budget: within 4,000 tokens, and holding the top-referenced symbols.
  const mapStarted = performance.now()
  const map = buildRepoMap(index, { budgetTokens: 4000 })
  const mapMs = since(mapStarted) * 1000
  const top = index.rankedSymbols(5)
  const missing = top.filter(
    (s) => !map.text.includes(`${s.path}\n`) || !map.text.includes(` ${s.name} (${s.line})`),
  )
  if (missing.length > 0)
    throw new Error(`the repo map lacks top symbols: ${missing.map((s) => s.name).join(', ')}`)
  const mapTokens = countTokens(map.text)
  log(
    `repo map: ${mapTokens} tokens, ${map.files} files, ${map.symbols} symbols in ${mapMs.toFixed(0)} ms; top 5 symbols present`,
  )

  const target = files[Math.floor(files.length / 2)]
  const abs = path.join(root, target)
  const original = fs.readFileSync(abs, 'utf8')
  const updates: number[] = []
  const tsOne: number[] = []
  try {
    for (let i = 0; i <= UPDATE_RUNS; i++) {
      fs.writeFileSync(abs, original + `\nexport const edited${i} = ${i}\n`)
      const { seconds, value } = await timed(async () => {
        const r = await index.update([target])
        index.dependents(target)
        return r
      })
      if (value.parsed[0] !== target || index.definitions(`edited${i}`).length !== 1)
        throw new Error(`update did not re-index ${target}`)
      const t = performance.now()
      ts.createSourceFile(target, fs.readFileSync(abs, 'utf8'), ts.ScriptTarget.Latest, true)
      // The first round warms the in-process parser (the cold build parsed in workers).
      if (i > 0) {
        updates.push(seconds)
        tsOne.push(since(t))
      }
    }
  } finally {
    fs.writeFileSync(abs, original)
    await index.update([target])
    store.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
  log(`re-index one file: median ${(median(updates) * 1000).toFixed(1)} ms over ${UPDATE_RUNS} edits`)

  const cold = await compare({
    runs: RUNS,
    ours: () => coldIndex(root, workers),
    reference: () => tsParseAll(root, files).length,
  })
  const built = cold.oursValue
  if (built.files !== files.length || built.parsed !== files.length || built.errors.length > 0)
    throw new Error(
      `the index saw ${built.files} files, parsed ${built.parsed}, errors ${built.errors.length}`,
    )
  const coldS = median(cold.ours)
  log(
    `cold index: ${coldS.toFixed(2)} s = ${Math.round(files.length / coldS)} files/s (workers used: ${built.workers})`,
  )

  const single = await compare({
    runs: 1,
    warmups: 0,
    ours: () => coldIndex(root, 1),
    reference: () => tsParseAll(root, files).length,
  })

  return [
    {
      name: `index: cold, ${files.length} TS files (${workers} workers)`,
      unit: 's',
      ours: coldS,
      refName: 'read + ts.createSourceFile',
      reference: median(cold.reference),
      target: { maxRatio: 1.5, maxAbs: files.length / 500 },
      note: `median of ${RUNS}; ${Math.round(files.length / coldS)} files/s (target ≥ 500 files/s = ≤ ${files.length / 500} s); includes listing, hashing, tree-sitter parse + extraction, SQLite writes; the reference parses in one thread`,
    },
    {
      name: 'index: cold, one thread (context)',
      unit: 's',
      ours: single.ours[0],
      refName: 'read + ts.createSourceFile',
      reference: single.reference[0],
      note: `the same build with workers: 1; ${Math.round(files.length / single.ours[0])} files/s`,
    },
    {
      name: 'index: re-index after one file changes',
      unit: 'ms',
      ours: median(updates) * 1000,
      refName: 'ts.createSourceFile of that file',
      reference: median(tsOne) * 1000,
      target: { maxAbs: 100 },
      note: `median of ${UPDATE_RUNS} edits of ${target}: update([file]) + get_dependents, in a ${files.length}-file index`,
    },
    {
      name: `repo map: ${files.length} files`,
      unit: 'tokens',
      ours: mapTokens,
      target: { maxAbs: 4000 },
      note: `${map.files} files and ${map.symbols} definitions ranked by references and PageRank, built in ${mapMs.toFixed(0)} ms; the 5 top-referenced symbols are in it (checked)`,
    },
    {
      name: `index: memory held, ${files.length} files`,
      unit: 'MB',
      ours: indexMb,
      refName: 'all TypeScript ASTs',
      reference: astMb,
      target: { maxAbs: 300 },
      note: `heap + external growth with the built index in memory (after GC; RSS grew ${rssMb.toFixed(0)} MB, the workers' WASM heaps included until they exit); the reference holds every ts.SourceFile`,
    },
  ]
}

if (isMain(import.meta)) report('code index vs ts.createSourceFile', await benchIndex())
