import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { rgPath } from '@vscode/ripgrep'
import { sandboxRipgrepArgs } from '../src/main/containment/sandbox'
import { pushAll } from '../src/shared/arrays'
import { buildBenchCli, callTurn, stepGaps, timeSession } from './scale-session'
import { ensureScaleTree } from './scale-tree'
import { callTool, okFields, toolContext } from './tools'
import { compare, countLines, isMain, log, median, report, runProgram, timed, type BenchRow } from './util'

/*
 * search_in_files on the real tree of bench/scale.bench.ts (~85,000 files of npm
 * packages, minified bundles included) against `rg -n` with the same case mode and
 * filters (sandboxRipgrepArgs), timed in the same run, alternating sides:
 * - a query with a few hundred hits, some in megabyte-long minified lines, under
 *   the match cap, so both sides scan the whole tree (target ≤ 1.2×);
 * - a string found nowhere (the walk and the reads are all; target ≤ 1.0×);
 * - a common query with limit_matches 50: the tool stops at the limit, the
 *   reference is rg over the whole tree (target: below 1×, i.e. faster).
 * BENCH_SEARCH_SESSIONS=N adds the string found nowhere as a user meets it (searchSessionRows).
 */

const RUNS = 5
const NOWHERE = 'zqxDefinitelyAbsent'

export async function benchSearchScale(): Promise<BenchRow[]> {
  const tree = ensureScaleTree()
  log(`tree: ${tree.root} (${tree.files} files, ${tree.origin})`)
  const ctx = await toolContext(tree.root)
  // Like with like: the tool's case mode (case-sensitive unless asked otherwise) and its filters
  // (the deny list and the default ignores).
  const filter = sandboxRipgrepArgs(ctx.sandbox.denyPatterns)
  const rg = rgReference(ctx.root, filter)
  const rows: BenchRow[] = []

  for (const [label, query, limit, maxRatio] of [
    ['hundreds of hits, long lines', 'forwardRef', 1000, 1.2],
    ['a string found nowhere', NOWHERE, 1000, 1],
  ] as const) {
    const result = await compare({
      runs: RUNS,
      // limit_files at its maximum: the default (200 files) would stop before rg does.
      ours: () => callTool(ctx, 'search_in_files', { query, limit_matches: limit, limit_files: 10_000 }),
      reference: () => rg(query),
    })
    const fields = okFields(result.oursValue)
    const rgMatches = countLines(result.referenceValue)
    if (fields.count !== rgMatches)
      throw new Error(`search "${query}": the tool found ${String(fields.count)}, rg ${rgMatches}`)
    rows.push({
      name: `search-scale: ${label} (${rgMatches} hits)`,
      unit: 's',
      ours: median(result.ours),
      refName: 'rg -n',
      reference: median(result.reference),
      target: { maxRatio },
      note: `"${query}" over the whole tree, median of ${RUNS}; identical match count`,
    })
  }

  const common = 'function'
  const early = await compare({
    runs: RUNS,
    ours: () => callTool(ctx, 'search_in_files', { query: common, limit_matches: 50 }),
    reference: () => rg(common),
  })
  const fields = okFields(early.oursValue)
  if (fields.count !== 50 || !fields.truncated) throw new Error('the limited search did not stop at 50')
  rows.push({
    name: 'search-scale: limit_matches 50, common query',
    unit: 's',
    ours: median(early.ours),
    refName: `rg -n whole tree (${countLines(early.referenceValue)} hits)`,
    reference: median(early.reference),
    target: { maxRatio: 1 },
    note: `"${common}": the tool stops at its limit; median of ${RUNS}`,
  })
  return rows
}

/** `rg -n` for `query` with the tool's case mode and filters. */
function rgReference(root: string, filter: readonly string[]): (query: string) => Promise<Buffer> {
  return (query) =>
    runProgram(
      rgPath,
      ['--line-number', '--fixed-strings', '--case-sensitive', '--regexp', query, ...filter],
      {
        cwd: root,
        okCodes: [0, 1],
      },
    )
}

/** Calls of the string found nowhere in each session of searchSessionRows. */
const CALLS_PER_SESSION = 3

/**
 * The string found nowhere as a user meets it: `sessions` runs of `stepwise edit` (the built CLI,
 * `cli`, or this checkout's), each a new process on one data folder after the project's first
 * session (its baseline), each calling search_in_files for it CALLS_PER_SESSION times; the gap
 * between the model's requests around a call against `rg -n` timed three times after each session.
 * A session's first call runs beside its start-up work (the code index's check, its watches, a
 * build still under way across the first sessions); the later ones after it.
 */
export async function searchSessionRows(sessions: number, cli = buildBenchCli()): Promise<BenchRow[]> {
  const tree = ensureScaleTree()
  const ctx = await toolContext(tree.root)
  const rg = rgReference(ctx.root, sandboxRipgrepArgs(ctx.sandbox.denyPatterns))
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-bench-search-data-'))
  const search = (calls: number) => [
    ...Array.from({ length: calls }, (_, i) =>
      callTurn('search_in_files', { query: NOWHERE, limit_matches: 1000, limit_files: 10_000 }, `s_${i}`),
    ),
    { text: 'Done.' },
  ]
  try {
    log("the project's first session (its baseline), not timed")
    await timeSession(cli, { repo: tree.root, dataDir }, search(1))
    const first: number[] = []
    const later: number[] = []
    const reference: number[] = []
    for (let i = 0; i < sessions; i++) {
      const t = await timeSession(cli, { repo: tree.root, dataDir }, search(CALLS_PER_SESSION))
      if (t.code !== 0) throw new Error(`session ${i + 1} exited ${t.code}: ${t.stderr.slice(0, 500)}`)
      const gaps = stepGaps(t)
      first.push(gaps[0])
      pushAll(later, gaps.slice(1))
      for (let r = 0; r < 3; r++) reference.push((await timed(() => rg(NOWHERE))).seconds)
      log(
        `session ${i + 1}: ${gaps.map(ms).join(', ')} ms; rg ${reference.slice(-3).map(ms).join(', ')} ms; load ${loadAverage()}`,
      )
    }
    const row = (which: string, gaps: number[]): BenchRow => ({
      name: `search-scale: found nowhere, ${which}, in a session`,
      unit: 's',
      ours: median(gaps),
      refName: 'rg -n',
      reference: median(reference),
      target: { maxRatio: 1 },
      note: `gap between the model's requests around the call, ${gaps.map(ms).join(', ')} ms; median of ${gaps.length}`,
    })
    return [row("a session's first call", first), row('later calls', later)]
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

function ms(seconds: number): string {
  return String(Math.round(seconds * 1000))
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')
}

if (isMain(import.meta)) {
  const sessions = Number(process.env.BENCH_SEARCH_SESSIONS ?? 0)
  const rows = await benchSearchScale()
  if (sessions > 0) pushAll(rows, await searchSessionRows(sessions, process.env.BENCH_CLI))
  report('search_in_files on the real tree vs ripgrep', rows)
}
