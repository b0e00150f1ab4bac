import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { FakeTurn } from '../test/fake-model-server'
import { stepGaps, timeSession, type SessionTiming } from './scale-session'
import type { BenchRow } from './util'
import { maxOf } from '../src/shared/arrays'

/*
 * The first minutes on a big tree, as a user meets them: a fresh data folder, the first sessions
 * back to back (each a new process, the code index still being built across them), each step's
 * gap and each session's peak RSS per session — not a warmed-up median — with the same sessions
 * on the tiny repo beside them, alternating so the machine's load hits both alike.
 * BENCH_SCALE_FIRST (default 5) sets how many; 0 leaves them out.
 */

const FIRST = Number(process.env.BENCH_SCALE_FIRST ?? 5)

export async function firstSessions(
  cli: string,
  repos: { big: string; tiny: string },
  scripts: { big: FakeTurn[]; tiny: FakeTurn[] },
): Promise<BenchRow[]> {
  if (FIRST <= 0) return []
  const bigData = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-bench-first-'))
  const tinyData = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-bench-first-tiny-'))
  const rows: BenchRow[] = []
  try {
    for (let i = 1; i <= FIRST; i++) {
      const tiny = await timeSession(cli, { repo: repos.tiny, dataDir: tinyData }, scripts.tiny)
      const big = await timeSession(cli, { repo: repos.big, dataDir: bigData }, scripts.big)
      for (const [t, what] of [
        [tiny, 'tiny'],
        [big, 'big'],
      ] as const)
        if (t.code !== 0)
          throw new Error(`first sessions (${what} ${i}): exited ${t.code}: ${t.stderr.slice(0, 500)}`)
      rows.push(stepRow(i, big, tiny), memoryRow(i, big, tiny))
    }
  } finally {
    fs.rmSync(bigData, { recursive: true, force: true })
    fs.rmSync(tinyData, { recursive: true, force: true })
  }
  return rows
}

/** The slowest trivial step of session `i` (its first included): the issue's ≤ 30 ms in every session. */
function stepRow(i: number, big: SessionTiming, tiny: SessionTiming): BenchRow {
  const gaps = stepGaps(big)
  return {
    name: `scale: fresh data folder, session ${i}, slowest trivial step`,
    unit: 's',
    ours: maxOf(gaps),
    refName: 'tiny repo, same session',
    reference: maxOf(stepGaps(tiny)),
    target: { maxAbs: 0.03 },
    note: `steps ${ms(gaps)} ms (tiny ${ms(stepGaps(tiny))}); session ${big.wall.toFixed(2)} s (tiny ${tiny.wall.toFixed(2)} s); load ${os.loadavg()[0].toFixed(1)}`,
  }
}

const ms = (gaps: readonly number[]) => gaps.map((g) => Math.round(g * 1000)).join(', ')

function memoryRow(i: number, big: SessionTiming, tiny: SessionTiming): BenchRow {
  return {
    name: `scale: fresh data folder, session ${i}, peak RSS`,
    unit: 'MB',
    ours: big.peakRssMb,
    refName: 'tiny repo, same session',
    reference: tiny.peakRssMb,
    target: { maxAbs: i === 1 ? 300 : 200 },
    note: 'VmHWM sampled every 100 ms',
  }
}
