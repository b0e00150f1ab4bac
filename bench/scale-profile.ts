import fs from 'node:fs'
import path from 'node:path'
import { callTurn, stepGaps, timeSession } from './scale-session'
import { ensureScaleTree } from './scale-tree'
import type { FakeTurn } from '../test/fake-model-server'

/*
 * One session on the scale tree with `--cpu-prof`, for finding where a step goes:
 * `npx tsx bench/scale-profile.ts <cli.js> <dataDir> <read|command|search> [profileDir]`.
 */
const [cli, dataDir, kind, profDir] = process.argv.slice(2)
// The scale bench's tree (BENCH_SCALE_TREE, or the cached one, built on first use).
const { root } = ensureScaleTree()
const file = process.env.BENCH_FILE ?? 'packages/ramda/es/add.js'
const calls = (n: number, name: string, args: object): FakeTurn[] =>
  Array.from({ length: n }, (_, i) => callTurn(name, args, `${name}_${i}`))
const turns: FakeTurn[] =
  kind === 'search'
    ? [
        ...calls(3, 'search_in_files', { query: 'zqxDefinitelyAbsent', limit_matches: 1000 }),
        { text: 'Done.' },
      ]
    : kind === 'command'
      ? [...calls(4, 'run_command', { command: 'echo hi' }), { text: 'Done.' }]
      : [...calls(8, 'read_file', { path: file }), { text: 'Done.' }]
fs.mkdirSync(dataDir, { recursive: true })
if (profDir) process.env.BENCH_SCALE_PROFILE = path.resolve(profDir)
const t = await timeSession(cli, { repo: root, dataDir }, turns)
if (t.code !== 0) console.log(t.stderr.slice(0, 2000))
console.log(
  JSON.stringify({
    wall: t.wall.toFixed(3),
    firstRequest: t.requests[0]?.toFixed(3),
    gaps: stepGaps(t).map((g) => Math.round(g * 1000)),
    exit: Math.round(t.exitDelay * 1000),
    rss: Math.round(t.peakRssMb),
  }),
)
