import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createSandbox } from '../src/main/containment/sandbox'
import { createIgnoredFolders } from '../src/main/snapshot/ignoredFolders'
import { compare, isMain, log, median, report, runProgram, type BenchRow } from './util'

/*
 * What review's record of ignored folders costs (src/main/snapshot/ignoredFolders.ts): the
 * stat-only walk before a session's first command (`record`) and the look after each command
 * (`changes`), with the inotify tracker vouching and without it (the stat look of every folder and
 * file it falls back to),
 * on a checkout with a real node_modules — this repository's own (`BENCH_IGNORED_ROOT` for
 * another). References in the same run: `git status --ignored` (git's own walk of the ignored
 * files; --no-optional-locks, so it never writes the index of the tree it measures) and
 * `find -type f -printf` over the same folders (a plain walk that stats every file).
 * It only reads the tree.
 */

const RUNS = 3

function defaultRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url))
  // node_modules may be a link to another checkout's: measure where the real folder is.
  return path.dirname(fs.realpathSync(path.join(here, '..', 'node_modules')))
}

export async function benchIgnored(): Promise<BenchRow[]> {
  const root = fs.realpathSync(process.env.BENCH_IGNORED_ROOT ?? defaultRoot())
  const sandbox = await createSandbox(root)
  const folders = createIgnoredFolders(sandbox)
  const untracked = createIgnoredFolders(sandbox, { track: false })
  const recorded = await folders.record()
  await untracked.record()
  const tops = fs
    .readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== '.git' && sandbox.isIgnored(e.name))
    .map((e) => e.name)
  log(
    `${root}: ${recorded.files} files in ${recorded.folders} ignored folders (top level: ${tops.join(', ')})`,
  )
  const git = () =>
    runProgram('git', ['--no-optional-locks', 'status', '--ignored', '--porcelain', '-uall'], { cwd: root })
  const find = () => runProgram('find', [...tops, '-type', 'f', '-printf', '%s %T@\n'], { cwd: root })

  const first = await compare({ runs: RUNS, ours: () => folders.record(), reference: git })
  const again = await compare({ runs: RUNS, ours: () => folders.changes(), reference: git })
  const walk = await compare({ runs: RUNS, ours: () => untracked.changes(), reference: find })
  folders.close()
  if (again.oursValue.length > 0)
    log(
      `changed while measured: ${again.oursValue
        .slice(0, 3)
        .map((c) => c.path)
        .join(', ')}`,
    )
  const note = `median of ${RUNS}; ${recorded.files} files under ${recorded.folders} ignored folders`
  return [
    {
      name: 'ignored folders: record before the first command',
      unit: 's',
      ours: median(first.ours),
      refName: 'git status --ignored -uall',
      reference: median(first.reference),
      note,
    },
    {
      name: 'ignored folders: changes after a command (tracked)',
      unit: 's',
      ours: median(again.ours),
      refName: 'git status --ignored -uall',
      reference: median(again.reference),
      note,
    },
    {
      name: 'ignored folders: changes after a command (stat look, no tracker)',
      unit: 's',
      ours: median(walk.ours),
      refName: 'find -type f -printf (stat walk)',
      reference: median(walk.reference),
      note,
    },
  ]
}

if (isMain(import.meta)) report('ignored folders vs git status --ignored', await benchIgnored())
