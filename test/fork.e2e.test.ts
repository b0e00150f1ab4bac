/**
 * `stepwise sessions fork` and `replay` end to end: a session made by the built CLI
 * against the fake model server, then forked into a git worktree at a middle step,
 * re-run there on another model, and replayed — real git, a real SQLite file.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest'
import { buildCli, committedRepo, editArgs, runCli as runBuiltCli } from './cli-harness'
import { startFakeModelServer, type FakeModelServer, type FakeModelServerOptions } from './fake-model-server'
import type { StepwiseEvent } from '../src/shared/protocol'
import { stepNumberAt, stepsOf } from '../src/shared/steps'

let CLI = ''
const runCli = (args: string[]) => runBuiltCli(CLI, args)

let repo: string
let dataDir: string
let worktree: string
const servers: FakeModelServer[] = []

beforeAll(() => {
  CLI = buildCli('stepwise-fork-e2e')
}, 120_000)

beforeEach(() => {
  repo = committedRepo('stepwise-fork-repo-', { 'greet.ts': 'export const greeting = "hello"\n' })
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-fork-data-'))
  worktree = path.join(fs.realpathSync(os.tmpdir()), `stepwise-fork-wt-${process.pid}-${Date.now()}`)
})

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
  fs.rmSync(worktree, { recursive: true, force: true })
  fs.rmSync(`${repo}-fork-1`, { recursive: true, force: true })
})

async function serve(turns: FakeModelServerOptions['turns']): Promise<FakeModelServer> {
  const server = await startFakeModelServer({ turns })
  servers.push(server)
  return server
}

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; seq: number; [k: string]: unknown })

it('forks at a step into a worktree, re-runs from there on another model, and replays both', async () => {
  const first = await serve([
    {
      toolCalls: [
        { name: 'edit_file', arguments: { path: 'greet.ts', old_string: 'hello', new_string: 'Hello' } },
      ],
    },
    { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.md', content: '# Notes\n' } }] },
    { text: 'Done.' },
  ])
  const made = await runCli(
    editArgs(
      { repo, dataDir, baseUrl: first.v1Url, model: 'first-model' },
      'Capitalise and take notes',
      '--approve',
      'auto-edit',
      '--json',
    ),
  )
  expect(made.code).toBe(0)
  const events = lines(made.stdout)
  const parentId = String(events[0].sessionId)
  // The step of the first edit's result: greet.ts edited, notes.md not yet written.
  const atSeq = events.find((e) => e.type === 'tool.finished')!.seq
  const atStep = stepNumberAt(stepsOf(events as unknown as StepwiseEvent[]), atSeq)
  expect(atStep).toBe(3) // the task, the model's reply with its call, the call

  const second = await serve([{ text: 'Continuing on the second model: nothing more to do.' }])
  const forked = await runCli([
    'sessions',
    'fork',
    parentId,
    '--at',
    String(atStep),
    '--worktree',
    worktree,
    '--provider',
    'openai-chat',
    '--model',
    'second-model',
    '--base-url',
    second.v1Url,
    '--approve',
    'auto-edit',
    '--data-dir',
    dataDir,
  ])
  expect(forked.stderr).toBe('')
  expect(forked.code).toBe(0)

  // Files as they were at that step, in the worktree; the original project is untouched.
  expect(fs.readFileSync(path.join(worktree, 'greet.ts'), 'utf8')).toBe('export const greeting = "Hello"\n')
  expect(fs.existsSync(path.join(worktree, 'notes.md'))).toBe(false)
  expect(fs.existsSync(path.join(repo, 'notes.md'))).toBe(true)

  // The second model received the history up to the step, and nothing after it.
  const request = second.requests.find((r) => r.path.endsWith('/chat/completions'))!
  const messages = request.body.messages as Array<{ role: string; content: string | null }>
  expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool'])
  expect(request.body.model).toBe('second-model')

  // Both sessions show the link.
  const list = JSON.parse(
    (await runCli(['sessions', 'list', '--json', '--data-dir', dataDir])).stdout,
  ) as Array<{
    id: string
    parentId: string | null
  }>
  const child = list.find((s) => s.parentId === parentId)!
  expect(child).toBeDefined()
  const childShow = await runCli(['sessions', 'show', child.id, '--data-dir', dataDir])
  expect(childShow.stdout).toContain(`forked from ${parentId} at step ${atStep}`)
  const parentShow = await runCli(['sessions', 'show', parentId, '--data-dir', dataDir])
  expect(parentShow.stdout).toContain(`forked at step ${atStep} into ${child.id}`)
  // Rows carry their step numbers: the forked call is step 3.
  expect(parentShow.stdout).toMatch(/\[ {3}3\] ✓ edit_file/)

  // Replay prints the parent's steps in order, with the diff of each checkpoint.
  const replay = await runCli(['sessions', 'replay', parentId, '--json', '--data-dir', dataDir])
  expect(replay.code).toBe(0)
  const frames = lines(replay.stdout)
  const seqs = frames.map((f) => f.seq)
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
  // Each event carries the step it belongs to; the steps run 1, 2, 3… (0: the session's start).
  const numbers = [...new Set(frames.map((f) => f.step as number))]
  expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i))
  const human = await runCli(['sessions', 'replay', parentId, '--data-dir', dataDir])
  expect(human.stdout).toContain('+export const greeting = "Hello"')
  expect(human.stdout).toContain('+# Notes')
}, 60_000) // seven CLI processes, one after another

it('refuses a step inside a model turn, naming the nearest valid steps (exit 2)', async () => {
  const s = await serve([
    { toolCalls: [{ name: 'read_file', arguments: { path: 'greet.ts' } }] },
    { text: 'ok' },
  ])
  const made = await runCli(editArgs({ repo, dataDir, baseUrl: s.v1Url, model: 'm' }, 'look', '--json'))
  const events = lines(made.stdout)
  // Step 2 is the model's reply that makes the call; its result is step 3.
  const res = await runCli([
    'sessions',
    'fork',
    String(events[0].sessionId),
    '--at',
    '2',
    '--worktree',
    worktree,
    '--data-dir',
    dataDir,
  ])
  expect(res.code).toBe(2)
  expect(res.stderr).toContain(
    'step 2 is between a tool call and its result: a fork from there would invent an ending the session did not have. Choose step 1 or step 3.',
  )
  const out = await runCli([
    'sessions',
    'fork',
    String(events[0].sessionId),
    '--at',
    '99999',
    '--worktree',
    worktree,
    '--data-dir',
    dataDir,
  ])
  expect(out.code).toBe(2)
  expect(out.stderr).toMatch(/step 99999 is out of range: the session has \d+ steps \(0 is its start\)/)
})

it('forks the files alone into a worktree beside the repository when no folder is named', async () => {
  const s = await serve([
    {
      toolCalls: [
        { name: 'edit_file', arguments: { path: 'greet.ts', old_string: 'hello', new_string: 'Hi' } },
      ],
    },
    { text: 'ok' },
  ])
  const made = await runCli(
    editArgs({ repo, dataDir, baseUrl: s.v1Url, model: 'm' }, 'greet', '--approve', 'auto-edit', '--json'),
  )
  const parentId = String(lines(made.stdout)[0].sessionId)
  const res = await runCli([
    'sessions',
    'fork',
    parentId,
    '--at',
    '0',
    '--only',
    'files',
    '--worktree',
    '--data-dir',
    dataDir,
  ])
  expect(res.stderr).toBe('')
  expect(res.code).toBe(0)
  expect(res.stdout).toContain(`at step 0 into`)
  expect(res.stdout).toContain(`(“Fork of greet”)`)
  expect(res.stdout).toContain(`in the git worktree ${repo}-fork-1`)
  expect(res.stdout).toContain('conversation: none (a new chat on those files)')
  expect(fs.readFileSync(path.join(`${repo}-fork-1`, 'greet.ts'), 'utf8')).toBe(
    'export const greeting = "hello"\n',
  )
  expect(fs.readFileSync(path.join(repo, 'greet.ts'), 'utf8')).toBe('export const greeting = "Hi"\n')
  const both = await runCli([
    'sessions',
    'fork',
    parentId,
    '--at',
    '1',
    '--only',
    'conversation',
    '--worktree',
    '--data-dir',
    dataDir,
  ])
  expect(both.code).toBe(2)
  expect(both.stderr).toContain('--only conversation keeps the files where they are: drop --worktree.')
})
