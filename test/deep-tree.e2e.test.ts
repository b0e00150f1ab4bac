import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { openStore } from '../src/main/store/store'
import { buildCli, commit, editArgs, git, runCli } from './cli-harness'
import { startFakeModelServer, type FakeModelServer } from './fake-model-server'

/*
 * A folder chain 10,000 deep in the project, met through the real CLI: `edit` starts, lists,
 * edits and finishes, and the folders past PATH_MAX are skipped instead of failing the run.
 * (Before the ignore rules kept one record per folder, a chain 1,000 deep took 22 s to start
 * and one 2,000 deep over a minute; a path past PATH_MAX refused the whole project.)
 */

let CLI: string
const cleanup: string[] = []
const chains: string[] = []
let server: FakeModelServer | undefined

beforeAll(() => {
  CLI = buildCli('stepwise-deep-tree-e2e')
}, 240_000)

afterEach(async () => {
  await server?.close()
  server = undefined
  // rm works one folder at a time, where a recursive unlink from Node would pass PATH_MAX.
  for (const dir of cleanup.splice(0)) execFileSync('rm', ['-rf', dir])
  // Removing 10,000 nested folders from ext4 takes ~26 s of waiting on the disk (0.6 s of CPU):
  // the chain goes in the background, past the test's end.
  for (const dir of chains.splice(0)) spawn('rm', ['-rf', dir], { detached: true, stdio: 'ignore' }).unref()
})

/**
 * `depth` folders named d under `root` with a file at depth 1,000 and one at the bottom, made with
 * relative mkdir and chdir (no absolute path past PATH_MAX can be made).
 */
function makeChain(root: string, depth: number): void {
  const script = `const fs = require('fs'); process.chdir(process.argv[1]); for (let i = 0; i < ${depth}; i++) { if (i === 1000) fs.writeFileSync('mid.ts', 'x\\n'); fs.mkdirSync('d'); process.chdir('d') } fs.writeFileSync('bottom.ts', 'x\\n')`
  execFileSync(process.execPath, ['-e', script, root])
}

function deepRepo(): string {
  const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-deep-e2e-')))
  chains.push(repo)
  fs.writeFileSync(path.join(repo, 'greet.ts'), 'export const greeting = "hello"\n')
  fs.writeFileSync(path.join(repo, '.gitignore'), '*.log\n')
  git(repo, 'init', '-q')
  git(repo, 'add', '-A')
  commit(repo, '-qm', 'init')
  return repo
}

describe('a project holding a folder chain 10,000 deep', () => {
  it('`edit` starts, lists the project, edits a file and finishes', async () => {
    const repo = deepRepo()
    makeChain(repo, 10_000)
    const dataDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-deep-e2e-data-')))
    cleanup.push(dataDir)
    server = await startFakeModelServer({
      turns: [
        { toolCalls: [{ name: 'list_files', arguments: { glob: '*.ts' } }] },
        {
          toolCalls: [
            { name: 'edit_file', arguments: { path: 'greet.ts', old_string: 'hello', new_string: 'Hello' } },
          ],
        },
        { text: 'Done.' },
      ],
    })

    const started = performance.now()
    const run = await runCli(
      CLI,
      editArgs(
        { repo, dataDir, baseUrl: server.v1Url },
        'Capitalize the greeting',
        '--approve',
        'auto-edit',
        '--json',
      ),
    )
    const seconds = (performance.now() - started) / 1000
    // Said once, at the start: the chain's folders past PATH_MAX are left out, and why.
    expect(run.stderr).toMatch(
      /^stepwise: 1 path\(s\) skipped: listings, snapshots and checkpoints leave out "d\/d\/d.*name too long/,
    )
    expect(run.stderr.trim().split('\n')).toHaveLength(1)
    expect(run.code).toBe(0)
    expect(fs.readFileSync(path.join(repo, 'greet.ts'), 'utf8')).toBe('export const greeting = "Hello"\n')
    // The whole run, the chain's walk and every snapshot included: 5–22 s on a shared 2-core machine
    // (the quadratic checks took over a minute at 2,000 levels).
    expect(seconds).toBeLessThan(45)
    console.log(`edit on a 10,000-deep chain: ${seconds.toFixed(1)} s`)

    const store = openStore(dataDir)
    try {
      const [session] = store.listSessions()
      const events = store.listEvents(session.id)
      const listed = events.find((e) => e.type === 'tool.finished' && e.name === 'list_files')
      // The listing reaches into the chain as far as a path can go; the bottom, past PATH_MAX, is skipped.
      const files = (listed as unknown as { result: { files: string[] } }).result.files
      expect(files).toEqual([`${'d/'.repeat(1000)}mid.ts`, 'greet.ts'])
    } finally {
      store.close()
    }
  }, 120_000)
})
