import { spawn } from 'node:child_process'
import fs from 'node:fs'
import { pathToFileURL } from 'node:url'
import { maxOf } from '../src/shared/arrays'

/*
 * Shared by every benchmark: timing, medians, the result rows and their table.
 * A benchmark never prints a bare time: each row carries our figure, a reference
 * measured in the same run, the ratio, the target and PASS/FAIL.
 */

export type Unit = 's' | 'ms' | 'MB' | 'events/s' | 'tokens' | 'count'

export interface Target {
  /** ours / reference must not exceed this. */
  maxRatio?: number
  /** ours (in the row's unit) must not exceed this. */
  maxAbs?: number
  /** ours must reach at least this (a count where more is better, such as steps on a screen). */
  minAbs?: number
}

export interface BenchRow {
  name: string
  unit: Unit
  ours: number
  /** What the reference is, e.g. `rg --files`. */
  refName?: string
  reference?: number
  /** No target: the row is context, never PASS/FAIL. */
  target?: Target
  note?: string
  /** The benchmark broke before it could measure: always FAIL. */
  error?: string
}

export interface ScoredRow extends BenchRow {
  ratio?: number
  pass?: boolean
}

export function score(row: BenchRow): ScoredRow {
  if (row.error !== undefined) return { ...row, pass: false }
  const ratio = row.reference !== undefined && row.reference > 0 ? row.ours / row.reference : undefined
  if (!row.target) return { ...row, ratio }
  const { maxRatio, maxAbs, minAbs } = row.target
  const ratioOk = maxRatio === undefined || (ratio !== undefined && ratio <= maxRatio)
  const absOk = maxAbs === undefined || row.ours <= maxAbs
  const minOk = minAbs === undefined || row.ours >= minAbs
  return { ...row, ratio, pass: ratioOk && absOk && minOk }
}

export function isMain(meta: ImportMeta): boolean {
  return process.argv[1] !== undefined && meta.url === pathToFileURL(fs.realpathSync(process.argv[1])).href
}

/** Seconds since `start` (a `performance.now()` reading). */
export function since(start: number): number {
  return (performance.now() - start) / 1000
}

export async function timed<T>(fn: () => Promise<T> | T): Promise<{ seconds: number; value: T }> {
  const start = performance.now()
  const value = await fn()
  return { seconds: since(start), value }
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error('median of nothing')
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2
}

export interface Comparison<A, B> {
  ours: number[]
  reference: number[]
  /** The values of the untimed warm-up runs, to check both sides agree. */
  oursValue: A
  referenceValue: B
}

/**
 * Times two sides the same way: each `warmups` times untimed (file cache, JIT;
 * default once), then `runs` alternating rounds, so drift on the machine hits
 * both sides alike.
 */
export async function compare<A, B>(opts: {
  runs: number
  warmups?: number
  ours: () => Promise<A> | A
  reference: () => Promise<B> | B
}): Promise<Comparison<A, B>> {
  let oursValue = await opts.ours()
  let referenceValue = await opts.reference()
  for (let i = 1; i < (opts.warmups ?? 1); i++) {
    oursValue = await opts.ours()
    referenceValue = await opts.reference()
  }
  const ours: number[] = []
  const reference: number[] = []
  for (let i = 0; i < opts.runs; i++) {
    if (i % 2 === 0) {
      ours.push((await timed(opts.ours)).seconds)
      reference.push((await timed(opts.reference)).seconds)
    } else {
      reference.push((await timed(opts.reference)).seconds)
      ours.push((await timed(opts.ours)).seconds)
    }
  }
  return { ours, reference, oursValue, referenceValue }
}

/** Runs a program to completion, collecting stdout; rejects on a non-zero exit unless allowed. */
export function runProgram(
  file: string,
  args: readonly string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; okCodes?: readonly number[] } = {},
): Promise<Buffer> {
  const okCodes = opts.okCodes ?? [0]
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    let err = ''
    child.stdout.on('data', (c: Buffer) => out.push(c))
    child.stderr.on('data', (c: Buffer) => (err += c.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== null && okCodes.includes(code)) resolve(Buffer.concat(out))
      else reject(new Error(`${file} ${args.join(' ')} exited ${code}: ${err.slice(0, 2000)}`))
    })
  })
}

export function countLines(buf: Buffer): number {
  let n = 0
  for (let i = buf.indexOf(10); i >= 0; i = buf.indexOf(10, i + 1)) n++
  return n
}

export const MB = 1024 * 1024

export interface MemoryReading {
  heapUsed: number
  rss: number
  external: number
  /** Peak RSS of the process so far (bytes). */
  maxRss: number
}

export function gc(): boolean {
  const collect = (globalThis as { gc?: () => void }).gc
  if (!collect) return false
  collect()
  collect()
  return true
}

export function memory(): MemoryReading {
  const m = process.memoryUsage()
  return {
    heapUsed: m.heapUsed,
    rss: m.rss,
    external: m.external + m.arrayBuffers,
    maxRss: process.resourceUsage().maxRSS * 1024,
  }
}

// ── formatting ───────────────────────────────────────────────────────────────

export function formatValue(value: number | undefined, unit: Unit): string {
  if (value === undefined) return '—'
  switch (unit) {
    case 's':
      return value < 1 ? `${(value * 1000).toFixed(value < 0.01 ? 2 : 1)} ms` : `${value.toFixed(2)} s`
    case 'ms':
      return `${value.toFixed(value < 10 ? 3 : 1)} ms`
    case 'MB':
      return value < 0.1 ? `${(value * 1024).toFixed(1)} KB` : `${value.toFixed(1)} MB`
    case 'events/s':
      return `${Math.round(value).toLocaleString('en-US')} ev/s`
    case 'tokens':
      return `${Math.round(value).toLocaleString('en-US')} tokens`
    case 'count':
      return Math.round(value).toLocaleString('en-US')
  }
}

export function formatTarget(row: BenchRow): string {
  const t = row.target
  if (!t) return 'info'
  const parts: string[] = []
  if (t.maxAbs !== undefined)
    parts.push(
      `≤ ${row.unit === 's' || row.unit === 'count' ? formatValue(t.maxAbs, row.unit) : `${t.maxAbs} ${row.unit}`}`,
    )
  if (t.maxRatio !== undefined) parts.push(`≤ ${t.maxRatio.toFixed(1)}×`)
  if (t.minAbs !== undefined) parts.push(`≥ ${t.minAbs}`)
  return parts.join(' and ')
}

function verdict(row: ScoredRow): string {
  if (row.pass === undefined) return ''
  if (row.error !== undefined) return 'FAIL (error)  <<<'
  return row.pass ? 'PASS' : 'FAIL  <<<'
}

export function formatTable(rows: readonly BenchRow[]): string {
  const scored = rows.map(score)
  const header = ['benchmark', 'ours', 'reference', 'ratio', 'target', 'result']
  const body = scored.map((r) => [
    r.name,
    r.error !== undefined ? 'error' : formatValue(r.ours, r.unit),
    r.reference === undefined ? '—' : `${formatValue(r.reference, r.unit)} (${r.refName})`,
    r.ratio === undefined ? '—' : `${r.ratio.toFixed(2)}×`,
    formatTarget(r),
    verdict(r),
  ])
  const widths = header.map((h, i) =>
    maxOf(
      body.map((b) => b[i].length),
      h.length,
    ),
  )
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd()
  const out = [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...body.map(line)]
  const notes = scored.filter((r) => r.note || r.error).map((r) => `  · ${r.name}: ${r.error ?? r.note}`)
  return [...out, ...(notes.length ? ['', ...notes] : [])].join('\n')
}

/**
 * Prints a benchmark's rows and, under `bench/run.ts`, hands them to the runner
 * through the file named by BENCH_RESULT_FILE (one JSON row per line).
 */
export function report(title: string, rows: readonly BenchRow[]): void {
  console.log(`\n${title}\n${formatTable(rows)}\n`)
  const file = process.env.BENCH_RESULT_FILE
  if (file) fs.appendFileSync(file, rows.map((r) => JSON.stringify(r) + '\n').join(''))
}

export function log(message: string): void {
  console.log(`  ${message}`)
}
