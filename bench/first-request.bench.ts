import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { committedRepo } from '../test/cli-harness'
import { buildBenchCli, timeSession, type SessionTiming } from './scale-session'
import { ensureScaleTree } from './scale-tree'
import { isMain, log, median, report, type BenchRow } from './util'

/*
 * How long a new session makes the user wait for its first model request, as a CLI user meets it:
 * a fresh data folder, each `stepwise edit` a new process, an instant scripted model. A small tree
 * is indexed before the first request (up to SMALL_TREE_WAIT_MS, so it holds the symbols); a big
 * one waits at most INDEX_WAIT_MS for its index and sends what is indexed plus an outline
 * (session/code-context.ts). Reference, in the same run and alternating with it: the same
 * sessions on a five-file project (TypeScript, Python, Go). Session 1 on the big tree includes its
 * first baseline; sessions 2 and 3 run while its code index is still being built.
 * BENCH_FIRST_REQUEST_SESSIONS (default 3) sets how many.
 */

const SESSIONS = Number(process.env.BENCH_FIRST_REQUEST_SESSIONS ?? 3)

const FIVE_FILES = {
  'math.ts': 'export function add(a: number, b: number): number {\n  return a + b\n}\n',
  'shapes.ts':
    'export class Circle {\n  constructor(readonly r: number) {}\n  area() { return 3.14 * this.r ** 2 }\n}\n',
  'cli.py': 'def main(argv):\n    return len(argv)\n',
  'util.py': 'class Cache:\n    def get(self, key):\n        return None\n',
  'main.go': 'package main\n\nfunc Run() int { return 1 }\n\nfunc main() { Run() }\n',
}

async function main(): Promise<void> {
  const tree = ensureScaleTree()
  log(`tree: ${tree.files} files at ${tree.root} (${tree.origin})`)
  const cli = buildBenchCli()
  const small = committedRepo('stepwise-bench-first-request-small-', FIVE_FILES)
  const bigData = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-bench-first-request-'))
  const smallData = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-bench-first-request-small-data-'))
  const checked = (t: SessionTiming, what: string) => {
    if (t.code !== 0 || t.requests.length === 0)
      throw new Error(`${what}: exited ${t.code}: ${t.stderr.slice(0, 500)}`)
    return t
  }
  const rows: BenchRow[] = []
  try {
    const smalls: number[] = []
    for (let i = 1; i <= SESSIONS; i++) {
      const s = checked(await timeSession(cli, { repo: small, dataDir: smallData }, []), `small ${i}`)
      const b = checked(await timeSession(cli, { repo: tree.root, dataDir: bigData }, []), `big ${i}`)
      smalls.push(s.requests[0])
      log(
        `session ${i}: first request at ${ms(b.requests[0])} on the big tree, ${ms(s.requests[0])} on five files`,
      )
      rows.push({
        name: `first request, session ${i}${i === 1 ? ' (with the first baseline)' : ', index building'}`,
        unit: 's',
        ours: b.requests[0],
        refName: 'five-file project, same session',
        reference: s.requests[0],
        note: `seconds from spawn; session ${b.wall.toFixed(2)} s (five files ${s.wall.toFixed(2)} s)`,
      })
    }
    log(`five files, median first request ${ms(median(smalls))}`)
  } finally {
    for (const dir of [small, bigData, smallData]) fs.rmSync(dir, { recursive: true, force: true })
  }
  report('The first request of a new session — big tree against five files', rows)
}

const ms = (s: number) => `${Math.round(s * 1000)} ms`

if (isMain(import.meta)) await main()
