import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureTree, treeParams, treeRoot } from './tree'
import { formatTable, score, since, type BenchRow } from './util'
import { pushAll } from '../src/shared/arrays'

/*
 * `npm run bench [-- NAME...]`: every benchmark in turn, each in its own Node
 * process (a clean heap, --expose-gc for the memory figures, no state shared
 * between them), then one summary table. It is a report: the exit code is 0
 * even when a target fails; FAIL rows are marked.
 */

const here = path.dirname(fileURLToPath(import.meta.url))

interface Bench {
  name: string
  file: string
  /** For a benchmark that prints text instead of reporting rows. */
  parse?: (stdout: string) => BenchRow[]
}

const BENCHES: Bench[] = [
  { name: 'list', file: 'list.bench.ts' },
  { name: 'search', file: 'search.bench.ts' },
  { name: 'snapshot', file: 'snapshot.bench.ts', parse: parseSnapshotOutput },
  { name: 'diff', file: 'diff.bench.ts' },
  { name: 'loop', file: 'loop.bench.ts' },
  { name: 'exec', file: 'exec.bench.ts' },
  { name: 'sandbox', file: 'sandbox.bench.ts' },
  { name: 'gate', file: 'gate.bench.ts' },
  { name: 'index', file: 'index.bench.ts' },
  { name: 'toolcalls', file: 'toolcalls.bench.ts' },
  { name: 'tokens', file: 'tokens.bench.ts' },
  { name: 'bundle', file: 'bundle.bench.ts' },
  { name: 'timetravel', file: 'timetravel.bench.ts' },
  { name: 'ui', file: 'ui.bench.ts' },
  // Whole CLI sessions on a real tree of npm packages (built on first use: needs the registry).
  { name: 'scale', file: 'scale.bench.ts' },
  // search_in_files and the code index alone on that same real tree, against rg in the same run.
  { name: 'search-scale', file: 'search-scale.bench.ts' },
  { name: 'index-scale', file: 'index-scale.bench.ts' },
  // Review's stat-only record of ignored folders, on this checkout's real node_modules.
  { name: 'ignored', file: 'ignored.bench.ts' },
  // A folder chain 100 to 5,000 deep: the ignore rules' cost per level, against find.
  { name: 'deep-tree', file: 'deep-tree.bench.ts' },
]

/**
 * bench/snapshot.bench.ts prints lines such as
 * `first snapshot   1.23 s   git add -A  2.34 s   ratio 0.53`; its rows are read from them.
 */
function parseSnapshotOutput(stdout: string): BenchRow[] {
  const first = /first snapshot\s+([\d.]+) s\s+git add -A\s+([\d.]+) s/.exec(stdout)
  const again = /second snapshot\s+([\d.]+) s\s+git status\s+([\d.]+) s/.exec(stdout)
  const tree = /tree: (\d+) files, (\d+) MB/.exec(stdout)
  if (!first || !again)
    throw new Error('snapshot.bench.ts printed no "first snapshot" / "second snapshot" lines')
  const where = tree ? `its own tree of ${tree[1]} files, ${tree[2]} MB` : 'its own tree'
  return [
    {
      name: 'snapshot: first (baseline)',
      unit: 's',
      ours: Number(first[1]),
      refName: 'git add -A',
      reference: Number(first[2]),
      target: { maxRatio: 1.0 },
      note: `from bench/snapshot.bench.ts (${where}; one run each)`,
    },
    {
      name: 'snapshot: again, unchanged tree',
      unit: 's',
      ours: Number(again[1]),
      refName: 'git status',
      reference: Number(again[2]),
      target: { maxAbs: 0.3, maxRatio: 1.0 },
      note: 'from bench/snapshot.bench.ts (best of 3 each)',
    },
  ]
}

async function runBench(bench: Bench, env: NodeJS.ProcessEnv): Promise<BenchRow[]> {
  const file = path.join(here, bench.file)
  const resultFile = path.join(os.tmpdir(), `stepwise-bench-result-${process.pid}-${bench.name}.jsonl`)
  fs.rmSync(resultFile, { force: true })
  let stdout = ''
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', file], {
      cwd: path.dirname(here),
      env: { ...env, BENCH_RESULT_FILE: resultFile },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk)
      stdout += chunk.toString()
    })
    child.on('error', reject)
    child.on('close', resolve)
  })
  const reported = fs.existsSync(resultFile)
    ? fs.readFileSync(resultFile, 'utf8').split('\n').filter(Boolean)
    : []
  fs.rmSync(resultFile, { force: true })
  if (code !== 0)
    return [
      {
        name: `${bench.name}: did not finish`,
        unit: 's',
        ours: NaN,
        error: `exit code ${code}; see its output above`,
      },
    ]
  if (reported.length > 0) return reported.map((line) => JSON.parse(line) as BenchRow)
  if (bench.parse) {
    try {
      return bench.parse(stdout)
    } catch (err) {
      return [{ name: `${bench.name}: no figures`, unit: 's', ours: NaN, error: (err as Error).message }]
    }
  }
  return [{ name: `${bench.name}: no figures`, unit: 's', ours: NaN, error: 'it reported no rows' }]
}

/**
 * Between benchmarks: flush the previous one's dirty pages (the snapshot writes a
 * few hundred MB) and pause, so its write-back does not land in the next timing.
 */
function settle(): void {
  spawnSync('sync')
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000)
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2)
  const selected = BENCHES.filter(
    (b) => (wanted.length === 0 || wanted.includes(b.name)) && fs.existsSync(path.join(here, b.file)),
  )
  const missing = BENCHES.filter((b) => !fs.existsSync(path.join(here, b.file))).map((b) => b.file)
  const params = treeParams()
  console.log(
    `Stepwise benchmarks — ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`,
  )
  if (missing.length > 0) console.log(`(missing, skipped: ${missing.join(', ')})`)

  console.log(`tree: ${params.files} files, ~${params.mb} MB at ${treeRoot(params)} (generated on first use)`)
  const started = performance.now()
  const tree = ensureTree(params)
  console.log(
    `tree ready: ${tree.files} files, ${(tree.bytes / 1e6).toFixed(0)} MB, ${tree.hiddenFiles} ignored or denied` +
      (since(started) > 1 ? ` (generated in ${since(started).toFixed(0)} s)` : ' (cached)'),
  )

  // snapshot.bench.ts reads its own size variable.
  const env: NodeJS.ProcessEnv = { ...process.env }
  if (process.env.BENCH_FILES && !process.env.STEPWISE_BENCH_FILES)
    env.STEPWISE_BENCH_FILES = process.env.BENCH_FILES

  const rows: BenchRow[] = []
  for (const bench of selected) {
    settle()
    console.log(`\n━━ ${bench.name} (bench/${bench.file}) ━━`)
    const t = performance.now()
    pushAll(rows, await runBench(bench, env))
    console.log(`  (${since(t).toFixed(0)} s)`)
  }

  const scored = rows.map(score)
  const failed = scored.filter((r) => r.pass === false).length
  const passed = scored.filter((r) => r.pass === true).length
  console.log(`\n━━ summary (${params.files} files, ~${params.mb} MB; medians unless noted) ━━\n`)
  console.log(formatTable(rows))
  console.log(`\n${passed} PASS, ${failed} FAIL${failed > 0 ? '  <<< see the FAIL rows above' : ''}`)
}

await main()
