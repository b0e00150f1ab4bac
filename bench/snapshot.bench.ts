/**
 * Throwaway timing check for the snapshotter (not a unit test). Generates a
 * deterministic source-like tree in os.tmpdir() (kept between runs), then times
 * `git add -A` into a fresh repo and `git status` against the first and the
 * second Stepwise snapshot of the same tree, and prints times and ratios. The
 * snapshotter is wired as the app wires it: the sandbox's listing, and a walk of
 * the directories it does not ignore so an unchanged tree need not be listed again.
 *
 *   npx rolldown bench/snapshot.bench.ts -p node -f esm -e better-sqlite3,better-sqlite3-napi \
 *     -o out/bench/snapshot.bench.mjs && node out/bench/snapshot.bench.mjs
 *
 * STEPWISE_BENCH_FILES=5000 for a quick run (default 50,000 files, ~400 MB).
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createSandbox } from '../src/main/containment/sandbox'
import { listUnignoredDirectories } from '../src/main/snapshot/directories'
import { createSnapshotter } from '../src/main/snapshot/snapshotter'
import { openStore } from '../src/main/store/store'
import { minOf } from '../src/shared/arrays'
import { snapshotTablesOf } from '../src/main/store/snapshot-tables'

const fileCount = Number(process.env.STEPWISE_BENCH_FILES ?? 50_000)
const WORDS =
  'const function return import export value item index result error await async string number if else for while this data'.split(
    ' ',
  )

function generateTree(root: string): void {
  const marker = path.join(root, '.complete')
  if (fs.existsSync(marker)) return
  fs.rmSync(root, { recursive: true, force: true })
  // mulberry32: deterministic, so every run measures the same tree.
  let seed = 1
  const rnd = () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  for (let i = 0; i < fileCount; i++) {
    const dir = path.join(root, `pkg${i % 50}`, `mod${i % 17}`)
    fs.mkdirSync(dir, { recursive: true })
    const lines: string[] = []
    const n = Math.floor(rnd() * 300) + 20
    for (let l = 0; l < n; l++) {
      let line = '  '.repeat(Math.floor(rnd() * 4))
      const words = Math.floor(rnd() * 8) + 2
      for (let k = 0; k < words; k++)
        line += WORDS[Math.floor(rnd() * WORDS.length)] + (rnd() < 0.2 ? Math.floor(rnd() * 1000) : '') + ' '
      lines.push(line)
    }
    fs.writeFileSync(path.join(dir, `file${i}.ts`), lines.join('\n') + '\n')
  }
  fs.writeFileSync(marker, '')
  fs.writeFileSync(path.join(root, '.gitignore'), '.complete\n')
}

function time<T>(fn: () => T): [number, T] {
  const t = performance.now()
  const r = fn()
  return [(performance.now() - t) / 1000, r]
}

async function timeAsync<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now()
  const r = await fn()
  return [(performance.now() - t) / 1000, r]
}

async function main(): Promise<void> {
  const tree = path.join(os.tmpdir(), `stepwise-bench-tree-v2-${fileCount}`)
  const [genS] = time(() => generateTree(tree))
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-bench-'))
  const git = (...args: string[]) =>
    execFileSync('git', [`--git-dir=${work}/git`, `--work-tree=${tree}`, ...args], {
      cwd: tree,
      maxBuffer: 1 << 30,
    })
  // Wired as the app wires it (src/main/session/start.ts).
  const sandbox = await createSandbox(tree)
  const listFiles = async () => (await sandbox.listFiles()).files
  const listDirectories = () => listUnignoredDirectories(sandbox.root, (rel) => sandbox.isIgnored(rel))

  // Warm the page cache so neither side pays for the first read from disk.
  await listFiles().then((files) => files.forEach((f) => fs.readFileSync(path.join(tree, f))))

  execFileSync('git', ['init', '-q', '--bare', `${work}/git`])
  const [gitAddS] = time(() => git('add', '-A'))
  git('status', '--porcelain') // first status refreshes racily-clean entries
  const gitStatusS = minOf([0, 1, 2].map(() => time(() => git('status', '--porcelain'))[0]))

  const store = openStore(path.join(work, 'data'))
  const snapshotter = createSnapshotter(snapshotTablesOf(store), {
    root: sandbox.root,
    listFiles,
    listDirectories,
  })
  const [firstS, first] = await timeAsync(() => snapshotter.takeSnapshot({ sessionId: null, label: 'first' }))
  const seconds: number[] = []
  for (let i = 0; i < 3; i++)
    seconds.push((await timeAsync(() => snapshotter.takeSnapshot({ sessionId: null })))[0])
  const secondS = minOf(seconds)
  const [listS, listed] = await timeAsync(listFiles)
  const [walkS] = await timeAsync(listDirectories)
  // A new file: the listing cannot be reused, so this pays for listing and walking again.
  fs.writeFileSync(path.join(tree, 'pkg0', 'bench-new-file.ts'), 'x')
  const [changedS] = await timeAsync(() => snapshotter.takeSnapshot({ sessionId: null }))
  fs.rmSync(path.join(tree, 'pkg0', 'bench-new-file.ts'))
  // A fresh snapshotter on the same database: loads the stat cache, lists.
  const [restartS] = await timeAsync(() =>
    createSnapshotter(snapshotTablesOf(store), {
      root: sandbox.root,
      listFiles,
      listDirectories,
    }).takeSnapshot({
      sessionId: null,
    }),
  )
  // The snapshotter's own cost when it must list, with the listing already in hand.
  const given = createSnapshotter(snapshotTablesOf(store), {
    root: sandbox.root,
    listFiles: async () => listed,
  })
  await given.takeSnapshot({ sessionId: null })
  const ownS: number[] = []
  for (let i = 0; i < 3; i++) ownS.push((await timeAsync(() => given.takeSnapshot({ sessionId: null })))[0])
  store.close()
  const dbBytes = fs.statSync(path.join(work, 'data', 'stepwise.db')).size

  const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`
  console.log(
    `tree: ${first.info.fileCount} files, ${mb(first.info.totalBytes)} (generated in ${genS.toFixed(1)} s), db ${mb(dbBytes)}`,
  )
  console.log(
    `first snapshot   ${firstS.toFixed(2)} s   git add -A  ${gitAddS.toFixed(2)} s   ratio ${(firstS / gitAddS).toFixed(2)}`,
  )
  console.log(
    `second snapshot  ${secondS.toFixed(3)} s  git status  ${gitStatusS.toFixed(3)} s  ratio ${(secondS / gitStatusS).toFixed(2)}`,
  )
  console.log(
    `  ripgrep listing alone ${listS.toFixed(3)} s; directory walk alone ${walkS.toFixed(3)} s; a snapshot that must list, with the listing given ${minOf(ownS).toFixed(3)} s`,
  )
  console.log(
    `  after adding a file (lists and walks again) ${changedS.toFixed(3)} s; new snapshotter on the same database ${restartS.toFixed(3)} s`,
  )
  fs.rmSync(work, { recursive: true, force: true })
}

await main()
