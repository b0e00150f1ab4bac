import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { listUnignoredDirectories } from '../src/main/snapshot/directories'
import { createSandbox } from '../src/main/containment/sandbox'
import { isMain, log, report, runProgram, timed, type BenchRow } from './util'

/*
 * A folder chain d/d/…/d of growing depth, a file at the bottom and a .gitignore at the top:
 * the folder walk behind every snapshot (each folder asks the sandbox whether it is ignored)
 * plus the sandbox's file listing, against `find` over the same tree in the same run. Past
 * about 2,040 levels the chain is longer than PATH_MAX: the rest is skipped, by both sides.
 * DEEP_TREE_DEPTHS=100,1000 picks the depths (default 100, 1000, 2000, 5000, 10000); one run per depth.
 */

const DEPTHS = (process.env.DEEP_TREE_DEPTHS ?? '100,1000,2000,5000,10000').split(',').map(Number)

/** The chain, built with relative mkdir and chdir: an absolute path past PATH_MAX cannot be made. */
function buildChain(depth: number): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-deep-bench-'))
  fs.writeFileSync(path.join(root, '.gitignore'), '*.log\n')
  const cwd = process.cwd()
  try {
    process.chdir(root)
    for (let i = 0; i < depth; i++) {
      fs.mkdirSync('d')
      process.chdir('d')
    }
    fs.writeFileSync('bottom.ts', 'x\n')
    fs.writeFileSync('bottom.log', 'x\n')
  } finally {
    process.chdir(cwd)
  }
  return root
}

export async function benchDeepTree(): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  for (const depth of DEPTHS) {
    const root = buildChain(depth)
    try {
      const sandbox = await createSandbox(root)
      let walkSeconds = 0
      const ours = await timed(async () => {
        const started = performance.now()
        const dirs = await listUnignoredDirectories(sandbox.root, (rel) => sandbox.isIgnored(rel))
        walkSeconds = (performance.now() - started) / 1000
        const { files } = await sandbox.listFiles()
        return { dirs: dirs.length, files }
      })
      // find prints what it could walk and complains (exit 1) about the rest past PATH_MAX.
      const reference = await timed(() => runProgram('find', ['.'], { cwd: sandbox.root, okCodes: [0, 1] }))
      const found = reference.value.toString('utf8').split('\n').filter(Boolean).length
      log(
        `depth ${depth}: ${ours.value.dirs} folders walked in ${walkSeconds.toFixed(2)} s, ${ours.value.files.length} files listed (${ours.value.files.slice(-1)[0]?.slice(-12) ?? 'none'}); find printed ${found} entries`,
      )
      rows.push({
        name: `deep tree: folder walk + listing, depth ${depth}`,
        unit: 's',
        ours: ours.seconds,
        refName: 'find .',
        reference: reference.seconds,
        target: { maxAbs: depth <= 1000 ? 2 : 10 },
        note: `one run; ${ours.value.dirs} folders judged by the ignore rules`,
      })
    } finally {
      await runProgram('rm', ['-rf', root])
    }
  }
  return rows
}

if (isMain(import.meta)) report('deep folder chain vs find', await benchDeepTree())
