/**
 * Tool calls written as text, through the real `stepwise edit` CLI: every corpus in
 * test/fixtures/toolcalls/ is played by the fake model server as the assistant's raw
 * content, over Ollama with native tools, Ollama without them (text-tools mode) and
 * Chat Completions. All cases run as one session per provider, back to back (each
 * turn's calls must run before the next turn is asked for), then a false positive
 * as the final answer, which must run nothing and end the session. The unit corpus
 * test (src/main/providers/toolcalls/corpus.test.ts) checks every case and negative;
 * this one proves the providers, the agent loop and the CLI carry them through.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildCli, committedRepo, runCli } from './cli-harness'
import { startFakeModelServer, type FakeModelServer, type FakeTurn } from './fake-model-server'
import { loadCorpora, type ExpectedCall } from './toolcall-corpus'
import { pushAll } from '../src/shared/arrays'

let CLI = ''
const temps: string[] = []

beforeAll(() => {
  CLI = buildCli('stepwise-toolcalls-e2e')
}, 120_000)

afterAll(() => {
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true })
})

type Mode = 'ollama-tools' | 'ollama-text' | 'openai-chat'
const MODES: Mode[] = ['ollama-tools', 'ollama-text', 'openai-chat']

type Json = Record<string, unknown>

interface Session {
  events: Json[]
  server: FakeModelServer
  code: number | null
  stderr: string
}

function tempDir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  temps.push(dir)
  return dir
}

/** One `stepwise edit` session whose model answers with `texts`, one per turn. */
async function session(mode: Mode, texts: string[]): Promise<Session> {
  const repo = committedRepo('stepwise-tc-repo-', { 'a.txt': 'one\n' })
  temps.push(repo)
  const dataDir = tempDir('stepwise-tc-data-')
  const turns: FakeTurn[] = texts.map((text) => ({ text }))
  const server = await startFakeModelServer({
    turns,
    show: mode === 'ollama-text' ? { capabilities: ['completion'] } : undefined,
  })
  try {
    const ollama = mode !== 'openai-chat'
    const res = await runCli(CLI, [
      'edit',
      'Work on the project',
      '--repo',
      repo,
      '--provider',
      ollama ? 'ollama' : 'openai-chat',
      '--model',
      'local-model',
      '--base-url',
      ollama ? server.url : server.v1Url,
      '--approve',
      'full-auto',
      '--max-steps',
      '1000',
      // Every corpus case runs in one session: more calls than the default limit of 50.
      '--max-tool-calls',
      '5000',
      '--json',
      '--data-dir',
      dataDir,
    ])
    const events = res.stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Json)
    return { events, server, code: res.code, stderr: res.stderr }
  } finally {
    await server.close()
  }
}

const chatRequests = (s: Session) =>
  s.server.requests.filter((r) => r.path === '/api/chat' || r.path === '/v1/chat/completions')
const messages = (s: Session) => s.events.filter((e) => e.type === 'assistant.message')
const callsOf = (message: Json): ExpectedCall[] =>
  (message.toolCalls as Array<{ name: string; arguments: string }>).map((c) => ({
    name: c.name,
    arguments: JSON.parse(c.arguments) as Record<string, unknown>,
  }))

/** Runs `work` over `items` with at most `limit` at a time (each session is a CLI process). */
async function inBatches<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = []
  for (let i = 0; i < items.length; i += limit)
    pushAll(out, await Promise.all(items.slice(i, i + limit).map(work)))
  return out
}

const corpora = loadCorpora()
/** Every corpus case, in file order. */
const cases = corpora.flatMap((corpus) =>
  corpus.cases.map((c) => ({ ...c, label: `${corpus.file}: ${c.name}` })),
)
const falsePositives = corpora.find((c) => c.family === 'false-positives')?.negatives ?? []
/** Corpus cases per session (see the first test). */
const CHUNK = 150

describe.each(MODES.map((mode, i) => [mode, i] as const))(
  'text tool calls through the CLI on %s',
  (mode, i) => {
    it('runs every corpus case back to back with its exact arguments; a false positive at the end runs nothing', async () => {
      // A few long sessions, so the CLI starts rarely: each turn's calls must run before the next
      // turn. A session holds at most CHUNK cases, so its transcript stays under the model's
      // window (a compaction would take one of the scripted turns as its summary).
      const final = falsePositives[i]
      for (let from = 0; from < cases.length; from += CHUNK) {
        const chunk = cases.slice(from, from + CHUNK)
        const s = await session(mode, [...chunk.map((c) => c.text), final.text])
        expect(s.stderr).toBe('')
        expect(s.code).toBe(0)
        expect(s.events.filter((e) => e.type === 'context.compacted')).toEqual([])
        const turns = messages(s)
        expect(turns).toHaveLength(chunk.length + 1)
        chunk.forEach((c, n) => expect(callsOf(turns[n]), c.label).toEqual(c.calls))
        // Every call ran and its result went back: one finished tool step per call, one request per turn.
        const calls = chunk.reduce((n, c) => n + c.calls.length, 0)
        expect(s.events.filter((e) => e.type === 'tool.finished')).toHaveLength(calls)
        expect(chatRequests(s)).toHaveLength(chunk.length + 1)
        // The last answer ran nothing, kept its text byte for byte, and ended the session.
        expect(turns.at(-1)).toMatchObject({ text: final.text, toolCalls: [] })
        expect(s.events.filter((e) => e.type === 'toolcall.unparsed')).toEqual([])
        expect(s.events.at(-2)).toMatchObject({ type: 'session.finished', reason: 'done' })
        expect(s.events.at(-1)).toMatchObject({ type: 'turn.finished', reason: 'done' })
      }
    }, 240_000)

    it('false positives end the session with nothing run and the text as written', async () => {
      // A third of the corpus per provider (all of it runs in the unit corpus test): a session each.
      const picked = falsePositives.filter((_, n) => n % MODES.length === i).slice(0, 5)
      expect(picked.length).toBeGreaterThan(3)
      const results = await inBatches(picked, 3, async (n) => ({ n, s: await session(mode, [n.text]) }))
      for (const { n, s } of results) {
        expect(s.code, n.name).toBe(0)
        expect(
          messages(s).map((m) => [m.text, m.toolCalls]),
          n.name,
        ).toEqual([[n.text, []]])
        expect(
          s.events.some((e) => e.type === 'tool.started'),
          n.name,
        ).toBe(false)
        expect(s.events.at(-2), n.name).toMatchObject({ type: 'session.finished', reason: 'done' })
        expect(s.events.at(-1), n.name).toMatchObject({ type: 'turn.finished', reason: 'done' })
      }
    }, 120_000)

    it('an unreadable call is sent back once for repair; the rewritten call runs', async () => {
      const broken =
        'Reading it.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}\n</tool_call>'
      const fixed = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n</tool_call>'
      const s = await session(mode, [broken, fixed, 'It says one.'])
      expect(s.code).toBe(0)
      const warning = s.events.find((e) => e.type === 'toolcall.unparsed')
      expect(warning).toMatchObject({ family: 'hermes', repair: expect.stringContaining('Nothing was run.') })
      // The repair reached the model as a user turn in the next request.
      const second = JSON.stringify(chatRequests(s)[1].body)
      expect(second).toContain(JSON.stringify(warning!.repair).slice(1, 60))
      const finished = s.events.find((e) => e.type === 'tool.finished')
      expect(finished).toMatchObject({ name: 'read_file', ok: true })
      expect(JSON.stringify(finished!.result)).toContain('one')
      expect(messages(s).at(-1)).toMatchObject({ text: 'It says one.', toolCalls: [] })
    }, 60_000)
  },
)
