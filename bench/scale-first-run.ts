import { committedRepo } from '../test/cli-harness'
import { firstSessions } from './scale-first'
import { buildBenchCli, callTurn } from './scale-session'
import { ensureScaleTree } from './scale-tree'
import { report } from './util'
import type { FakeTurn } from '../test/fake-model-server'

/*
 * The first sessions on a fresh data folder alone (scale-first.ts), without the rest of the
 * scale bench: `BENCH_SCALE_FIRST=3 npx tsx bench/scale-first-run.ts [cli.js]` (the CLI built
 * as the scale bench builds it when none is given). BENCH_FILE names the ~1 KB file to read.
 */
const tree = ensureScaleTree()
const cli = process.argv[2] ?? buildBenchCli()
const tiny = committedRepo('stepwise-bench-scale-tiny-', {
  'notes.txt': 'hello\n'.repeat(170),
  'main.ts': 'export const answer = 42\n',
})
const read = (file: string): FakeTurn[] => [
  ...Array.from({ length: 8 }, (_, i) => callTurn('read_file', { path: file }, `read_${i}`)),
  { text: 'Done.' },
]
const file = process.env.BENCH_FILE ?? 'packages/ramda/es/add.js'
const rows = await firstSessions(cli, { big: tree.root, tiny }, { big: read(file), tiny: read('notes.txt') })
report(`the first sessions on a fresh data folder (${cli})`, rows)
