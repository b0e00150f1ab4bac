/**
 * `stepwise sessions compact ID` with the built CLI, a real data folder and the fake model
 * server: the summary is stored, a re-run from a fork after it sends the summary instead of the
 * old messages, a second compaction has nothing to do, and a model error changes nothing.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openStore } from '../src/main/store/store'
import type { StepwiseEvent } from '../src/shared/protocol'
import { stepNumberAt, stepsOf } from '../src/shared/steps'
import { buildCli, committedRepo, editArgs, runCli as runBuiltCli } from './cli-harness'
import { startFakeModelServer, type FakeModelServer, type FakeTurn } from './fake-model-server'

let CLI = ''
const runCli = (args: string[]) => runBuiltCli(CLI, args)

let repo: string
let dataDir: string
let server: FakeModelServer | undefined

const BIG = Array.from({ length: 400 }, (_, i) => `line ${i}: the quick brown fox OLDCONTENT`).join('\n')
const SUMMARY = 'SUMMARY-TEXT: big.txt has 400 numbered lines.'
const RUN: FakeTurn[] = [
  { toolCalls: [{ name: 'read_file', arguments: { path: 'big.txt' } }] },
  { text: 'It has 400 lines.' },
]

beforeAll(() => {
  CLI = buildCli('stepwise-compact-cli-e2e')
}, 180_000)

beforeEach(() => {
  repo = committedRepo('stepwise-compact-cli-repo-', { 'big.txt': `${BIG}\n` })
  dataDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-compact-cli-data-')))
})

afterEach(async () => {
  await server?.close()
  server = undefined
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

/** One edit run that read big.txt; returns its session id. */
async function recordedRun(turns: FakeTurn[]): Promise<string> {
  server = await startFakeModelServer({ turns: [...RUN, ...turns] })
  const run = await runCli(editArgs({ repo, dataDir, baseUrl: server.v1Url }, 'How long is big.txt?'))
  expect(run.code).toBe(0)
  const store = openStore(dataDir)
  try {
    return store.listSessions()[0].id
  } finally {
    store.close()
  }
}

function events(id: string): StepwiseEvent[] {
  const store = openStore(dataDir)
  try {
    return store.listEvents(id)
  } finally {
    store.close()
  }
}

const chats = () => server!.requests.filter((r) => r.path === '/v1/chat/completions')

describe('stepwise sessions compact', () => {
  it('stores the summary, a re-run from after it starts from the summary, and a second has nothing to do', async () => {
    const id = await recordedRun([{ text: SUMMARY }, { text: 'Re-run answer.' }])
    const done = await runCli(['sessions', 'compact', id, '--focus', 'the count', '--data-dir', dataDir])
    expect(done).toMatchObject({ code: 0, stderr: '' })
    const figures = done.stdout.match(/^Compacted the context: ([\d,]+) → ([\d,]+) tokens\./)
    expect(figures).not.toBeNull()
    const [before, after] = [figures![1], figures![2]].map((n) => Number(n.replace(/,/g, '')))
    expect(after).toBeLessThan(before - 2000)
    expect(JSON.stringify(chats().at(-1)!.body)).toContain('keep above all: the count')

    const compacted = events(id).filter((e) => e.type === 'context.compacted')
    // The run's answer stays; its task's work (the call and the big result) is the summary.
    expect(compacted).toMatchObject([{ summary: SUMMARY, keptItems: 1, beforeTokens: before }])
    // The timeline of `sessions show` lists it, and the Markdown export carries the summary.
    const shown = await runCli(['sessions', 'show', id, '--data-dir', dataDir])
    expect(shown.stdout).toContain(`context compacted on request ${before} → ${after} tokens`)
    const md = await runCli(['sessions', 'export', id, '--format', 'md', '--data-dir', dataDir])
    expect(md.stdout).toContain(`*Context compacted on request: ${before} → ${after} tokens`)
    expect(md.stdout).toContain(`> ${SUMMARY}`)

    const again = await runCli(['sessions', 'compact', id, '--data-dir', dataDir])
    expect(again.code).toBe(0)
    expect(again.stdout).toMatch(/^Nothing to compact/)
    expect(events(id).filter((e) => e.type === 'context.compacted')).toHaveLength(1)

    // A re-run from the compaction's step (a fork on a model) is sent the summary, not the old read.
    const fork = await runCli([
      'sessions',
      'fork',
      id,
      '--at',
      String(stepNumberAt(stepsOf(events(id)), compacted[0].seq)),
      '--provider',
      'openai-chat',
      '--model',
      'm1',
      '--base-url',
      server!.v1Url,
      '--yes',
      '--data-dir',
      dataDir,
    ])
    expect(fork.code).toBe(0)
    const rerun = JSON.stringify(chats().at(-1)!.body.messages)
    expect(rerun).toContain(SUMMARY)
    expect(rerun).not.toContain('OLDCONTENT')
  }, 60_000)

  it('changes nothing when the model fails, and says so with the model exit code', async () => {
    const id = await recordedRun([{ status: 400, body: '{"error":{"message":"model overloaded"}}' }])
    const before = events(id)
    const failed = await runCli(['sessions', 'compact', id, '--data-dir', dataDir])
    expect(failed.code).toBe(4)
    expect(failed.stderr).toMatch(/compaction failed, nothing was changed: .*overloaded/)
    expect(events(id)).toEqual(before)
  }, 60_000)
})
