import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { MB, isMain, since } from './util'

/*
 * The benchmark tree: a deterministic, source-like project of BENCH_FILES files
 * (default 50,000) and about BENCH_MB megabytes (default 400). Mixed file sizes,
 * nested directories, folders that .gitignore ignores, denied files (.env, keys,
 * node_modules/) and a few binaries, so listing and search have real rules to
 * apply. Two query strings are planted at known rates so search has a realistic
 * number of hits and a rare one.
 *
 * Cached in os.tmpdir() under a name that encodes its parameters and reused when
 * complete (a marker file beside it, never inside, so listings don't see it).
 * Bump GENERATOR_VERSION whenever the output changes.
 */

const GENERATOR_VERSION = 1

/** Planted about once per 85 files: a few hundred matching lines, under the tool's 1,000 cap. */
export const COMMON_QUERY = 'retryWithBackoff'
/** Planted in one file out of ~10,000. */
export const RARE_QUERY = 'legacyTokenMigrator'

export interface TreeInfo {
  root: string
  files: number
  bytes: number
  /** Files .gitignore ignores or the sandbox denies (listing must skip them). */
  hiddenFiles: number
  generatedInSeconds?: number
}

export function treeParams(): { files: number; mb: number } {
  const files = Number(process.env.BENCH_FILES ?? 50_000)
  const mb = Number(process.env.BENCH_MB ?? 400)
  if (!(files >= 100) || !(mb >= 1))
    throw new Error(`BENCH_FILES must be ≥ 100 and BENCH_MB ≥ 1 (got ${files}, ${mb})`)
  return { files, mb }
}

export function treeRoot(params = treeParams()): string {
  return path.join(os.tmpdir(), `stepwise-bench-tree-v${GENERATOR_VERSION}-${params.files}f-${params.mb}mb`)
}

/** The tree for the current BENCH_FILES / BENCH_MB, generated on first use. */
export function ensureTree(params = treeParams()): TreeInfo {
  const root = treeRoot(params)
  const marker = `${root}.complete.json`
  if (fs.existsSync(marker) && fs.existsSync(root))
    return { ...(JSON.parse(fs.readFileSync(marker, 'utf8')) as TreeInfo), root }
  const partial = `${root}.partial`
  fs.rmSync(partial, { recursive: true, force: true })
  fs.rmSync(root, { recursive: true, force: true })
  const start = performance.now()
  const info = generate(partial, params.files, params.mb * MB)
  fs.renameSync(partial, root)
  const done: TreeInfo = { ...info, root, generatedInSeconds: since(start) }
  fs.writeFileSync(marker, JSON.stringify(done, null, 2))
  return done
}

// ── generation ───────────────────────────────────────────────────────────────

/** mulberry32: small, fast, and the same sequence on every machine. */
export function prng(seed: number): () => number {
  let s = seed | 0
  return () => {
    s = (s + 0x6d2b79f5) | 0
    let t = Math.imul(s ^ (s >>> 15), 1 | s)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

// None of these words may form the planted queries ("retry", "backoff", "legacy", "migrator" are absent).
const WORDS = (
  'user item list map node tree load save parse read write query cache store event state view model route token ' +
  'buffer stream index field value count size path file config option handler client server request response ' +
  'session record entry batch queue task job worker timer order price account report layout style theme color ' +
  'frame image order invoice payment cart product search filter sort page chunk block range window panel button ' +
  'dialog menu label title content header footer row column cell grid table schema type kind status result error ' +
  'message text line word char byte bit flag mode level limit offset cursor delta patch diff merge commit branch'
).split(' ')
const DIRS =
  'components utils services models hooks api core lib internal handlers views helpers adapters schema routes workers jobs db ui'.split(
    ' ',
  )
const TYPES =
  'string|number|boolean|void|unknown|Promise<void>|Date|Buffer|Map<string, number>|Record<string, unknown>'.split(
    '|',
  )

/** `count` lines of TypeScript-looking code, the same for the same seed (the diff benchmark's file). */
export function codeLines(seed: number, count: number): string[] {
  const rnd = prng(seed)
  const pool = makeLinePool(rnd, Math.min(count, 60_000))
  return Array.from({ length: count }, () => pool[Math.floor(rnd() * pool.length)])
}

function makeLinePool(rnd: () => number, size: number): string[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]
  const cap = (w: string) => w[0].toUpperCase() + w.slice(1)
  const ident = () =>
    pick(WORDS) + (rnd() < 0.6 ? cap(pick(WORDS)) : '') + (rnd() < 0.15 ? cap(pick(WORDS)) : '')
  const typeName = () => cap(pick(WORDS)) + (rnd() < 0.5 ? cap(pick(WORDS)) : '')
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ')
  const templates: Array<() => string> = [
    () => `import { ${ident()}, ${ident()} } from './${pick(DIRS)}/${ident()}'`,
    () =>
      `export function ${ident()}(${ident()}: ${typeName()}, ${ident()}: ${pick(TYPES)}): ${typeName()} {`,
    () => `export interface ${typeName()} {`,
    () => `  ${ident()}: ${pick(TYPES)}`,
    () => `  const ${ident()} = await ${ident()}.${ident()}(${ident()}, ${Math.floor(rnd() * 1000)})`,
    () =>
      `  const ${ident()} = ${ident()}.filter((${pick(WORDS)}) => ${pick(WORDS)}.${ident()} !== undefined)`,
    () => `  if (${ident()}.${ident()} === null) return ${rnd() < 0.5 ? 'undefined' : ident()}`,
    () => `    for (const ${pick(WORDS)} of ${ident()}) ${ident()} += ${pick(WORDS)}.${pick(WORDS)}`,
    () => `  // ${cap(words(3 + Math.floor(rnd() * 9)))}.`,
    () => `  return { ${ident()}: ${ident()}, ${ident()}: ${Math.floor(rnd() * 100)} }`,
    () => `    throw new Error('${cap(words(4 + Math.floor(rnd() * 6)))}')`,
    () => `  ${ident()}.${ident()}(${ident()}, '${pick(WORDS)}-${pick(WORDS)}')`,
    () => `    this.${ident()} = ${ident()} ?? ${JSON.stringify(pick(WORDS))}`,
    () => '  }',
    () => '}',
    () => '',
  ]
  return Array.from({ length: size }, () => pick(templates)())
}

/** Paths that listing must skip, with how many files go there (share of the total). */
interface HiddenPlace {
  dir: string
  share: number
  ext: string
}

function generate(root: string, fileCount: number, totalBytes: number): Omit<TreeInfo, 'root'> {
  const rnd = prng(0x5eed)
  const pool = makeLinePool(rnd, 60_000)
  const packages = Math.max(2, Math.min(40, Math.round(fileCount / 1250)))
  const pkg = (i: number) => `packages/pkg${String(i).padStart(2, '0')}`

  // Directory tree: each new folder hangs under a random existing one, ~12 files per folder.
  const dirs: string[] = []
  for (let p = 0; p < packages; p++) dirs.push(`${pkg(p)}/src`)
  const dirCount = Math.max(dirs.length, Math.round(fileCount / 12))
  const seenDirs = new Set(dirs)
  while (dirs.length < dirCount) {
    const parent = dirs[Math.floor(rnd() * dirs.length)]
    let name = DIRS[Math.floor(rnd() * DIRS.length)]
    if (rnd() < 0.5) name += '-' + WORDS[Math.floor(rnd() * WORDS.length)]
    const dir = `${parent}/${name}`
    if (seenDirs.has(dir)) continue
    seenDirs.add(dir)
    dirs.push(dir)
  }

  // About 5 % of the files sit where listing must not look.
  const hidden: HiddenPlace[] = [
    { dir: `${pkg(0)}/build`, share: 0.012, ext: '.js' }, // root .gitignore: build/
    { dir: `${pkg(1)}/build/assets`, share: 0.006, ext: '.js' },
    { dir: `${pkg(1)}/src/generated`, share: 0.008, ext: '.ts' }, // packages/pkg01/.gitignore: generated/
    { dir: 'coverage/lcov-report', share: 0.004, ext: '.html' }, // root .gitignore: coverage/
    { dir: 'node_modules/left-pad-ish/lib', share: 0.01, ext: '.js' }, // denied
    { dir: 'node_modules/@scope/kit/dist', share: 0.006, ext: '.js' },
    { dir: 'logs', share: 0.002, ext: '.log' }, // root .gitignore: *.log
    { dir: `${pkg(0)}/dist`, share: 0.002, ext: '.js' }, // denied: dist/
  ]

  // Sizes: log-normal weights (most files a few KB, a long tail), scaled to the byte budget.
  const special = 40 // fixed files below (configs, secrets, binaries), small
  const n = fileCount - special
  const weights = Array.from({ length: n }, (_, i) => {
    const gauss = Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd())
    return Math.exp(0.9 * gauss) * (i % 2500 === 7 ? 40 : 1) // a few big generated-looking files
  })
  const scale = (totalBytes * 0.99) / weights.reduce((a, b) => a + b, 0)

  const files = new Set<string>()
  let written = 0
  let hiddenFiles = 0
  const write = (rel: string, data: string | Buffer) => {
    const abs = path.join(root, rel)
    fs.mkdirSync(path.dirname(abs), { recursive: true })
    fs.writeFileSync(abs, data)
    files.add(rel)
    written += data.length
  }

  // Project files, ignore rules, secrets and binaries.
  write('.gitignore', 'build/\ncoverage/\n*.log\n.cache/\n')
  write(`${pkg(1)}/.gitignore`, 'generated/\n')
  write(
    'package.json',
    JSON.stringify({ name: 'bench-monorepo', private: true, workspaces: ['packages/*'] }, null, 2) + '\n',
  )
  write('README.md', '# Bench monorepo\n\nGenerated by bench/tree.ts for the Stepwise benchmarks.\n')
  for (let p = 0; p < Math.min(packages, 10); p++) {
    write(
      `${pkg(p)}/package.json`,
      JSON.stringify({ name: `@bench/pkg${p}`, version: '1.0.0', main: 'src/index.ts' }, null, 2) + '\n',
    )
  }
  const secrets: Array<[string, string]> = [
    ['.env', 'API_KEY=sk-not-a-real-key-retryWithBackoff\n'],
    ['.env.production', 'DATABASE_URL=postgres://x\n'],
    [`${pkg(3)}/.env.local`, 'TOKEN=legacyTokenMigrator\n'],
    ['certs/server.pem', '-----BEGIN CERTIFICATE-----\nretryWithBackoff\n-----END CERTIFICATE-----\n'],
    ['certs/server.key', '-----BEGIN PRIVATE KEY-----\nlegacyTokenMigrator\n-----END PRIVATE KEY-----\n'],
    ['deploy/id_rsa', '-----BEGIN OPENSSH PRIVATE KEY-----\n'],
    ['.npmrc', '//registry.npmjs.org/:_authToken=none\n'],
  ]
  for (const [rel, text] of secrets) write(rel, text)
  hiddenFiles += secrets.length
  let extra = files.size
  for (let b = 0; extra < special; b++, extra++) {
    const bytes = Buffer.alloc(4096 + Math.floor(rnd() * 60_000))
    for (let k = 0; k < bytes.length; k++) bytes[k] = Math.floor(rnd() * 256)
    write(`assets/img/icon-${b}.png`, bytes)
  }

  for (let i = 0; i < n; i++) {
    let dir: string
    let ext = i % 10 === 3 ? '.md' : i % 10 === 6 ? '.js' : '.ts'
    const r = rnd()
    let acc = 0
    let place: HiddenPlace | undefined
    for (const h of hidden) if (place === undefined && r < (acc += h.share)) place = h
    if (place) {
      dir = place.dir
      ext = place.ext
      hiddenFiles++
    } else {
      dir = dirs[Math.floor(rnd() * dirs.length)]
    }
    const base =
      WORDS[Math.floor(rnd() * WORDS.length)] +
      WORDS[Math.floor(rnd() * WORDS.length)].replace(/^./, (c) => c.toUpperCase())
    let rel = `${dir}/${base}${ext}`
    if (files.has(rel)) rel = `${dir}/${base}${i}${ext}`
    write(rel, fileText(rnd, pool, Math.max(64, Math.round(weights[i] * scale)), i))
  }
  return { files: files.size, bytes: written, hiddenFiles }
}

/** Lines picked from the pool up to `size` bytes, with the planted queries where due. */
function fileText(rnd: () => number, pool: readonly string[], size: number, index: number): string {
  const lines: string[] = []
  let bytes = 0
  const common = rnd() < 1 / 85
  const rare = index % 9973 === 42
  while (bytes < size) {
    const line = pool[Math.floor(rnd() * pool.length)]
    lines.push(line)
    bytes += line.length + 1
  }
  const at = (k: number) => Math.floor(k * lines.length)
  if (common)
    lines.splice(at(rnd()), 0, `    await retryWithBackoff(() => fetchPage(cursor), { attempts: 3 })`)
  if (rare) lines.splice(at(rnd()), 0, `import { legacyTokenMigrator } from '../compat/tokens'`)
  return lines.join('\n') + '\n'
}

if (isMain(import.meta)) {
  const info = ensureTree()
  console.log(JSON.stringify(info, null, 2))
}
