/**
 * Timing check for a session's baseline snapshot on a real tree (not a unit test),
 * each figure a new process as a CLI user meets it, against git timed in the same
 * run: the first baseline against `git add -A` into a fresh shadow repository, a
 * baseline of the unchanged tree against `git status`. Each child opens the store,
 * the sandbox and the snapshotter as `startSession` does and takes the baseline;
 * the same child on a one-file repository gives the fixed cost, subtracted.
 *
 *   npx tsx bench/snapshot-scale.bench.ts <tree> [runs]
 *
 * <tree> is a committed git repository whose files are not denied (npm packages
 * under a folder other than node_modules/). Work happens in a temp folder; the
 * tree is only read. STEPWISE_SRC=<another checkout>/src times that code instead.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const src = process.env.STEPWISE_SRC ?? path.resolve(import.meta.dirname, '../src')

/** In the child: one baseline, printed as JSON on stdout. */
async function child(repo: string, dataDir: string): Promise<void> {
  const t0 = performance.now()
  const { openStore } = await import(`${src}/main/store/store`)
  const { createSandbox } = await import(`${src}/main/containment/sandbox`)
  const { snapshotterFor } = await import(`${src}/main/session/start`)
  const loaded = performance.now()
  const store = openStore(dataDir)
  const sandbox = await createSandbox(repo)
  const snapshotter = snapshotterFor(store, sandbox)
  const r = await snapshotter.takeSnapshot({ sessionId: null, label: 'baseline' })
  snapshotter.close()
  store.close()
  const done = performance.now()
  const out = { files: r.info.fileCount, how: r.how, loadMs: loaded - t0, snapshotMs: done - loaded }
  process.stdout.write(JSON.stringify(out) + '\n')
}

function seconds(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const t = performance.now()
  const r = spawnSync(cmd, args, { ...opts, encoding: 'utf8', maxBuffer: 1 << 28 })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`)
  return { s: (performance.now() - t) / 1000, stdout: r.stdout }
}

/** A whole child process taking one baseline; its wall time and its own report. */
function baseline(repo: string, dataDir: string) {
  const r = seconds(process.execPath, [...process.execArgv, import.meta.filename, '--child', repo, dataDir])
  return { s: r.s, ...(JSON.parse(r.stdout.trim().split('\n').pop()!) as { files: number; how: string }) }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

function main(tree: string, runs: number): void {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-snapscale-'))
  const tiny = path.join(work, 'tiny')
  fs.mkdirSync(tiny)
  fs.writeFileSync(path.join(tiny, 'a.txt'), 'a\n')
  execFileSync('git', ['init', '-q'], { cwd: tiny })
  const rows: string[] = []
  const row = (what: string, ours: number, ref: number, refName: string, target: string) =>
    rows.push(
      `${what.padEnd(30)} ${ours.toFixed(2).padStart(6)} s  ${refName.padEnd(22)} ${ref.toFixed(2).padStart(6)} s  ${(ours / ref).toFixed(2).padStart(5)}×  (target ${target})`,
    )
  try {
    const fixed: number[] = []
    const first: number[] = []
    const gitAdd: number[] = []
    const again: number[] = []
    const status: number[] = []
    for (let i = 0; i < runs; i++) {
      const tinyData = path.join(work, `tiny-data-${i}`)
      baseline(tiny, tinyData)
      fixed.push(baseline(tiny, tinyData).s)
      // Ours first, each reference right after on the caches ours just warmed: the order
      // favours git (a first baseline right after heavy writes stats a cold inode cache).
      seconds('git', ['status', '--porcelain'], { cwd: tree })
      const data = path.join(work, `data-${i}`)
      const b1 = baseline(tree, data)
      first.push(b1.s)
      const shadow = path.join(work, `shadow-${i}.git`)
      execFileSync('git', ['init', '-q', '--bare', shadow])
      gitAdd.push(
        seconds('git', [`--git-dir=${shadow}`, `--work-tree=${tree}`, 'add', '-A'], { cwd: tree }).s,
      )
      fs.rmSync(shadow, { recursive: true, force: true })
      seconds('git', ['status', '--porcelain'], { cwd: tree })
      const b2 = baseline(tree, data)
      again.push(b2.s)
      status.push(seconds('git', ['status', '--porcelain'], { cwd: tree }).s)
      console.log(
        `run ${i + 1}: fixed ${fixed[i].toFixed(2)} s, first ${b1.s.toFixed(2)} s (${b1.files} files), git add -A ${gitAdd[i].toFixed(2)} s, unchanged ${b2.s.toFixed(2)} s (${b2.how}), git status ${status[i].toFixed(2)} s`,
      )
      fs.rmSync(data, { recursive: true, force: true })
    }
    const f = median(fixed)
    row('first baseline', median(first) - f, median(gitAdd), 'git add -A (shadow)', '≤ 0.5×')
    row('baseline of an unchanged tree', median(again) - f, median(status), 'git status', '≤ 1.0×, ≤ 0.3 s')
    console.log(`\nmedian of ${runs}, fixed cost ${f.toFixed(2)} s subtracted:\n${rows.join('\n')}`)
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
}

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4])
else if (!process.argv[2]) console.error('usage: npx tsx bench/snapshot-scale.bench.ts <git tree> [runs]')
else main(path.resolve(process.argv[2]), Number(process.argv[3] ?? 3))
