import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { unifiedDiff } from '../src/shared/diff'
import { codeLines, prng } from './tree'
import { MB, compare, gc, isMain, log, median, memory, report, runProgram, type BenchRow } from './util'
import { pushAll } from '../src/shared/arrays'

/*
 * Diff: unifiedDiff (src/shared/diff.ts) of a 20,000-line file with 200
 * scattered edits against `git diff --no-index` of the same two files, plus the
 * memory the diff takes: heap and RSS growth must stay flat (no O(n·m) table).
 */

const LINES = 20_000
const EDITS = 200
const RUNS = 31
/** The diff is short and JIT-compiled: a few untimed rounds first, as in a session that has diffed before. */
const WARMUPS = 5
const MAX_GROWTH_MB = 50

/** The file and its edited copy: modified, inserted and deleted runs of 1–3 lines, spread evenly. */
export function makeDiffInput(): { before: string; after: string } {
  const lines = codeLines(0xd1ff, LINES)
  const rnd = prng(0xed17)
  const after: string[] = []
  const gap = Math.floor(LINES / EDITS)
  let from = 0
  for (let e = 0; e < EDITS; e++) {
    const at = e * gap + 5 + Math.floor(rnd() * (gap - 10))
    pushAll(after, lines.slice(from, at))
    const run = 1 + Math.floor(rnd() * 3)
    const fresh = Array.from(
      { length: run },
      (_, k) => `  const edited${e}_${k} = ${lines[at + k].trim().slice(0, 40) || 'null'}`,
    )
    const kind = e % 3 // 0 modified, 1 inserted, 2 deleted
    from = kind === 1 ? at : at + run
    if (kind !== 2) pushAll(after, fresh)
  }
  pushAll(after, lines.slice(from))
  return { before: lines.join('\n') + '\n', after: after.join('\n') + '\n' }
}

export async function benchDiff(): Promise<BenchRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-bench-diff-'))
  try {
    const { before, after } = makeDiffInput()
    const a = path.join(dir, 'before.ts')
    const b = path.join(dir, 'after.ts')
    fs.writeFileSync(a, before)
    fs.writeFileSync(b, after)

    // Memory first, in a quiet heap: growth while the diff runs (garbage included) and what it keeps.
    gc()
    const m0 = memory()
    const patch = unifiedDiff('file.ts', before, after)
    const m1 = memory()
    gc()
    const m2 = memory()
    const heapPeakMb = (m1.heapUsed - m0.heapUsed) / MB
    const rssPeakMb = Math.max(m1.rss - m0.rss, m1.maxRss - m0.maxRss) / MB
    log(
      `memory: heap +${heapPeakMb.toFixed(1)} MB during the diff, +${((m2.heapUsed - m0.heapUsed) / MB).toFixed(1)} MB kept; RSS +${rssPeakMb.toFixed(1)} MB`,
    )

    verifyPatch(dir, patch, after)
    const ours = () => unifiedDiff('file.ts', fs.readFileSync(a, 'utf8'), fs.readFileSync(b, 'utf8'))
    const git = () =>
      runProgram('git', ['diff', '--no-index', '--no-color', '--no-ext-diff', 'before.ts', 'after.ts'], {
        cwd: dir,
        okCodes: [1],
        env: gitEnv(),
      })
    const result = await compare({ runs: RUNS, warmups: WARMUPS, ours, reference: git })
    const gitStat = stat(result.referenceValue.toString('utf8'))
    const ourStat = stat(result.oursValue)
    log(
      `edits: ours +${ourStat.added} -${ourStat.removed}, git +${gitStat.added} -${gitStat.removed}; patch verified with git apply`,
    )

    return [
      {
        name: `diff: unifiedDiff ${LINES / 1000}k lines, ${EDITS} edits`,
        unit: 's',
        ours: median(result.ours),
        refName: 'git diff --no-index',
        reference: median(result.reference),
        target: { maxRatio: 2 },
        note: `median of ${RUNS} after ${WARMUPS} untimed; both read the two files; git's figure includes its process start (~4 ms)`,
      },
      {
        name: 'diff: heap growth during the diff',
        unit: 'MB',
        ours: heapPeakMb,
        target: { maxAbs: MAX_GROWTH_MB },
        note: `heapUsed after − before with no GC in between (garbage included); ${((m2.heapUsed - m0.heapUsed) / MB).toFixed(1)} MB kept after GC; a naive LCS table would be ${((LINES * LINES * 4) / 1e9).toFixed(1)} GB`,
      },
      {
        name: 'diff: RSS growth during the diff',
        unit: 'MB',
        ours: rssPeakMb,
        target: { maxAbs: MAX_GROWTH_MB },
      },
    ]
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** git's own defaults, not the user's: no global config, no external diff driver. */
function gitEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }
}

/** Our patch must turn `before` into `after` exactly when git applies it. */
function verifyPatch(dir: string, patch: string, after: string): void {
  const work = path.join(dir, 'apply')
  fs.mkdirSync(work)
  fs.copyFileSync(path.join(dir, 'before.ts'), path.join(work, 'file.ts'))
  fs.writeFileSync(path.join(dir, 'ours.patch'), patch)
  const applied = spawnSync('git', ['apply', path.join(dir, 'ours.patch')], {
    cwd: work,
    env: gitEnv(),
    encoding: 'utf8',
  })
  if (applied.status !== 0) throw new Error(`git apply refused unifiedDiff's patch: ${applied.stderr}`)
  if (fs.readFileSync(path.join(work, 'file.ts'), 'utf8') !== after)
    throw new Error('unifiedDiff patch applied but did not produce the edited file')
}

function stat(patch: string): { added: number; removed: number } {
  let added = 0
  let removed = 0
  for (const line of patch.split('\n')) {
    if (line.startsWith('+') && !line.startsWith('+++')) added++
    else if (line.startsWith('-') && !line.startsWith('---')) removed++
  }
  return { added, removed }
}

if (isMain(import.meta)) {
  // The memory figures need a collectable heap: re-run under --expose-gc when started without it.
  if (gc()) report('unifiedDiff vs git diff --no-index', await benchDiff())
  else {
    const self = fileURLToPath(import.meta.url)
    const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', self], { stdio: 'inherit' })
    process.exitCode = run.status ?? 1
  }
}
