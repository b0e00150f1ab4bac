import fs from 'node:fs'
import path from 'node:path'
import { callTurn, stepGaps, timeSession } from './scale-session'
import { ensureScaleTree } from './scale-tree'
import type { FakeTurn } from '../test/fake-model-server'

/*
 * One session on the scale tree with `--cpu-prof`, for finding where a step goes:
 * `npx tsx bench/scale-profile.ts <cli.js> <dataDir> <read|command> [profileDir]`.
 */
const [cli, dataDir, kind, profDir] = process.argv.slice(2)
// The scale bench's tree (BENCH_SCALE_TREE, or the cached one, built on first use).
const { root } = ensureScaleTree()
const file = process.env.BENCH_FILE ?? 'packages/ramda/es/add.js'
const turns: FakeTurn[] =
  kind === 'command'
    ? [
        ...Array.from({ length: 4 }, (_, i) => callTurn('run_command', { command: 'echo hi' }, `run_${i}`)),
        { text: 'Done.' },
      ]
    : [
        ...Array.from({ length: 8 }, (_, i) => callTurn('read_file', { path: file }, `read_${i}`)),
        { text: 'Done.' },
      ]
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
