import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ALLOCATOR_ENV, launcherHeader } from './launcher'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-launcher-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/** A program with the CLI's header that prints what it was started with. */
function program(): string {
  const file = path.join(dir, 'program.mjs')
  const body = `console.log(JSON.stringify({ env: process.env, argv: process.argv.slice(2), pid: process.pid }))`
  fs.writeFileSync(file, `${launcherHeader()}\n${body}\n`, { mode: 0o755 })
  return file
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const parentEnv = { ...process.env }
  for (const name of Object.keys(ALLOCATOR_ENV)) delete parentEnv[name]
  // `node` as the header finds it: this test's own Node first on the PATH.
  const PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`
  const child = spawnSync(command, args, { env: { ...parentEnv, PATH, ...env }, encoding: 'utf8' })
  expect(child.stderr).toBe('')
  expect(child.status).toBe(0)
  return { ...(JSON.parse(child.stdout) as { env: NodeJS.ProcessEnv; argv: string[]; pid: number }), child }
}

describe.skipIf(process.platform === 'win32')('the CLI launcher', () => {
  const awkward = ['edit', 'a "quoted" task', "it's", '$HOME', '*', '', '--json']

  it('started as a program, runs Node with the allocator settings in the same process', () => {
    const started = run(program(), awkward)
    for (const [name, value] of Object.entries(ALLOCATOR_ENV)) expect(started.env[name]).toBe(value)
    // Every argument arrives as given: no word split, glob or expansion by the shell.
    expect(started.argv).toEqual(awkward)
    // `exec`: no shell left waiting as a parent.
    expect(started.pid).toBe(started.child.pid)
  })

  it('keeps a value the user set', () => {
    const user = Object.fromEntries(Object.keys(ALLOCATOR_ENV).map((name) => [name, '4']))
    expect(run(program(), [], user).env).toMatchObject(user)
  })

  it('is plain JavaScript to `node cli.js`, which runs it without the settings', () => {
    const started = run(process.execPath, [program(), ...awkward])
    expect(started.argv).toEqual(awkward)
    for (const name of Object.keys(ALLOCATOR_ENV)) expect(started.env[name]).toBeUndefined()
  })
})
