/**
 * `stepwise sessions undo` and `rewind` end to end: a session made by the built
 * CLI against the fake model server (two applied changes), then undone and
 * rewound through the CLI, in a temp project and a real SQLite file.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest'
import { buildCli, editArgs, runCli as runBuiltCli } from './cli-harness'
import { startFakeModelServer, type FakeModelServer } from './fake-model-server'
import type { StepwiseEvent } from '../src/shared/protocol'
import { stepNumberAt, stepsOf } from '../src/shared/steps'

let CLI = ''
const runCli = (args: string[]) => runBuiltCli(CLI, args)

let repo: string
let dataDir: string
let server: FakeModelServer | undefined

const ORIGINAL = 'export function greet(name: string) {\n  return "hello " + name\n}\n'
const EDITED = 'export function greet(name: string) {\n  return `Hello, ${name}!`\n}\n'

beforeAll(() => {
  CLI = buildCli('stepwise-timetravel-e2e')
}, 120_000)

beforeEach(() => {
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-tt-repo-')))
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-tt-data-'))
  fs.writeFileSync(path.join(repo, 'greet.ts'), ORIGINAL)
})

afterEach(async () => {
  await server?.close()
  server = undefined
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

const read = (rel: string) =>
  fs.existsSync(path.join(repo, rel)) ? fs.readFileSync(path.join(repo, rel), 'utf8') : null

/** A session that edits greet.ts, then adds notes.md; returns its id and the events' seqs by type. */
async function makeSession(): Promise<{ id: string; events: Array<{ seq: number; type: string }> }> {
  server = await startFakeModelServer({
    turns: [
      { toolCalls: [{ name: 'read_file', arguments: { path: 'greet.ts' } }] },
      {
        toolCalls: [
          {
            name: 'edit_file',
            arguments: { path: 'greet.ts', old_string: '"hello " + name', new_string: '`Hello, ${name}!`' },
          },
        ],
      },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.md', content: '# Notes\n' } }] },
      { text: 'Done.' },
    ],
  })
  const res = await runCli(
    editArgs(
      { repo, dataDir, baseUrl: server.v1Url },
      'Greet nicely and add notes',
      '--approve',
      'auto-edit',
      '--json',
    ),
  )
  expect(res.code).toBe(0)
  const events = res.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { seq: number; type: string; sessionId: string })
  expect(read('greet.ts')).toBe(EDITED)
  expect(read('notes.md')).toBe('# Notes\n')
  return { id: events[0].sessionId, events }
}

it('undo reverses the last change, rewind goes to any step, and undo reverses the rewind', async () => {
  const { id, events } = await makeSession()
  // Step numbers (shared/steps.ts), as `sessions show` prints them and `rewind --to` takes them.
  const steps = stepsOf(events as unknown as StepwiseEvent[])
  const checkpoints = events
    .filter((e) => e.type === 'checkpoint.created')
    .map((e) => stepNumberAt(steps, e.seq))
  expect(checkpoints).toHaveLength(2)

  const undo = await runCli(['sessions', 'undo', id, '--data-dir', dataDir])
  expect(undo.stderr).toBe('')
  expect(undo.code).toBe(0)
  expect(undo.stdout).toMatch(/^Undone: the project is at checkpoint \d+\.\n {2}deleted {2}notes\.md\n/)
  expect(read('notes.md')).toBe(null)
  expect(read('greet.ts')).toBe(EDITED)
  // A second undo would go further back: the undo is taken back by the rewind it names.
  const takeBack = new RegExp(`take this undo back with: stepwise sessions rewind ${id} --to (\\d+)\n`)
  const step = takeBack.exec(undo.stdout)?.[1]
  expect(step).toBeDefined()
  expect((await runCli(['sessions', 'rewind', id, '--to', step!, '--data-dir', dataDir])).code).toBe(0)
  expect(read('notes.md')).toBe('# Notes\n')
  expect((await runCli(['sessions', 'undo', id, '--data-dir', dataDir])).code).toBe(0)
  expect(read('notes.md')).toBe(null)

  const rewind = await runCli(['sessions', 'rewind', id, '--to', '1', '--data-dir', dataDir])
  expect(rewind.code).toBe(0)
  expect(rewind.stdout).toMatch(
    /^Rewound to step 1: the project is at checkpoint \d+\.\n {2}restored greet\.ts\n/,
  )
  expect(read('greet.ts')).toBe(ORIGINAL)

  const back = await runCli(['sessions', 'undo', id.slice(0, 10), '--data-dir', dataDir])
  expect(back.code).toBe(0)
  expect(read('greet.ts')).toBe(EDITED)
  expect(read('notes.md')).toBe(null)

  const again = await runCli([
    'sessions',
    'rewind',
    id,
    '--to',
    String(checkpoints[1]),
    '--data-dir',
    dataDir,
  ])
  expect(again.code).toBe(0)
  expect(read('notes.md')).toBe('# Notes\n')
})

it('asks before overwriting a file changed outside the session; without a terminal refuses unless --yes', async () => {
  const { id } = await makeSession()
  fs.writeFileSync(path.join(repo, 'greet.ts'), 'mine\n')
  const refused = await runCli(['sessions', 'rewind', id, '--to', '1', '--data-dir', dataDir])
  expect(refused.code).toBe(1)
  expect(refused.stderr).toContain('changed outside the session')
  expect(refused.stderr).toContain('  greet.ts\n')
  expect(refused.stderr).toContain('Pass --yes')
  expect(read('greet.ts')).toBe('mine\n')

  const forced = await runCli(['sessions', 'rewind', id, '--to', '1', '--yes', '--data-dir', dataDir])
  expect(forced.code).toBe(0)
  expect(read('greet.ts')).toBe(ORIGINAL)
  // The user's version was saved first: undo brings it back.
  const undo = await runCli(['sessions', 'undo', id, '--data-dir', dataDir])
  expect(undo.code).toBe(0)
  expect(read('greet.ts')).toBe('mine\n')
})

it('bad usage exits 2: an unknown session, a step out of range', async () => {
  const { id, events } = await makeSession()
  const unknown = await runCli(['sessions', 'undo', 'nope', '--data-dir', dataDir])
  expect(unknown.code).toBe(2)
  expect(unknown.stderr).toContain('no session matches "nope"')
  const count = stepsOf(events as unknown as StepwiseEvent[]).length
  const out = await runCli(['sessions', 'rewind', id, '--to', String(count + 5), '--data-dir', dataDir])
  expect(out.code).toBe(2)
  expect(out.stderr).toContain(
    `step ${count + 5} is out of range: the session has ${count} steps (0 is its start). See them with: stepwise sessions show`,
  )
  expect(read('greet.ts')).toBe(EDITED)
})
