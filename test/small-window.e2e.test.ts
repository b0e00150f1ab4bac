/**
 * Small context windows end to end: the built CLI with `--num-ctx 8192` against the
 * fake model server, on a session that reads a 200-line file three times and then
 * edits it. The server reports prompt counts honestly (a bit above our estimate, as
 * a chat template adds tokens) or, like Ollama on a prompt-cache hit, a fixed 120.
 * Every request the server received is counted with the project's tokenizer.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { tokenizerFor } from '../src/main/context/tokens'
import { buildCli, committedRepo, runCli } from './cli-harness'
import { startFakeModelServer, type FakeModelServer, type FakeTurn } from './fake-model-server'

const WINDOW = 8192
const MODEL = 'qwen2.5-coder:7b'
const count = tokenizerFor(MODEL)

let CLI = ''
let repo: string
let dataDir: string
let server: FakeModelServer | undefined

beforeAll(() => {
  CLI = buildCli('stepwise-small-window-e2e')
}, 120_000)

beforeEach(() => {
  const lines = Array.from(
    { length: 200 },
    (_, i) => `export const value${i} = compute(${i}, 'a string that makes the line longer', ${i * 7})`,
  )
  repo = committedRepo('stepwise-small-repo-', { 'big.ts': `${lines.join('\n')}\n` })
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-small-data-'))
})

afterEach(async () => {
  await server?.close()
  server = undefined
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

/** A request body's tokens as the model would see them, counted independently of the core. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function bodyTokens(body: any): number {
  let n = body.tools ? count(JSON.stringify(body.tools)) : 0
  if (typeof body.instructions === 'string') n += count(body.instructions)
  for (const m of body.messages ?? body.input ?? []) {
    n += 4 + count(typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? m.output ?? ''))
    if (m.tool_calls) n += count(JSON.stringify(m.tool_calls))
  }
  return n
}

const read = { toolCalls: [{ name: 'read_file', arguments: { path: 'big.ts' } }] }
const plan: FakeTurn[] = [
  { text: 'Reading the file.', ...read },
  { text: 'Reading it again to be sure.', ...read },
  { text: 'Once more.', ...read },
  {
    toolCalls: [
      {
        name: 'edit_file',
        arguments: {
          path: 'big.ts',
          old_string: 'export const value42 =',
          new_string: 'export const answer42 =',
        },
      },
    ],
  },
  { text: 'Renamed value42 to answer42.' },
]

type Reporting = 'honest' | 'cached'

/** Serves `plan` (summaries to tool-less requests), reporting prompt counts as `reporting` says. */
async function serve(reporting: Reporting) {
  const reported: number[] = []
  const windows: unknown[] = []
  const temperatures: unknown[] = []
  let step = 0
  server = await startFakeModelServer({
    show: { contextLength: 32768 },
    turns: (req) => {
      const prompt = bodyTokens(req.body)
      // Honest: a chat template adds a little to what we count. Cached: Ollama counts only new tokens.
      const inputTokens = reporting === 'honest' ? Math.ceil(prompt * 1.08) + 20 : 120
      const usage = { inputTokens, outputTokens: 20 }
      if (!req.body.tools) return { text: 'Summary: read big.ts (200 lines) several times.', usage }
      windows.push(req.body.options?.num_ctx)
      temperatures.push(req.body.options?.temperature ?? req.body.temperature)
      reported.push(inputTokens)
      return { ...(plan[step++] ?? { text: 'Done.' }), usage }
    },
  })
  return { server, reported, windows, temperatures }
}

const providers = [
  { provider: 'ollama', base: (s: FakeModelServer) => s.url },
  { provider: 'openai-chat', base: (s: FakeModelServer) => s.v1Url },
] as const

describe('an 8k window', () => {
  for (const { provider, base } of providers) {
    for (const reporting of ['honest', 'cached'] as const) {
      it(`${provider}, ${reporting} prompt counts: three reads and an edit finish, no request over the window`, async () => {
        const s = await serve(reporting)
        const res = await runCli(CLI, [
          'edit',
          'Rename value42 to answer42 in big.ts',
          '--repo',
          repo,
          '--provider',
          provider,
          '--model',
          MODEL,
          '--base-url',
          base(s.server),
          '--num-ctx',
          String(WINDOW),
          '--temperature',
          '0.2',
          '--approve',
          'auto-edit',
          '--data-dir',
          dataDir,
          '--json',
        ])
        const events = res.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Record<string, unknown>)
        const finished = events.find((e) => e.type === 'session.finished')
        expect(finished?.reason, res.stderr).toBe('done')
        expect(res.code).toBe(0)
        expect(fs.readFileSync(path.join(repo, 'big.ts'), 'utf8')).toContain('export const answer42 =')

        // No request the server received was larger than the window, by an independent count.
        const chats = s.server.requests.filter((r) => r.method === 'POST' && r.body?.messages)
        expect(chats.length).toBeGreaterThanOrEqual(plan.length)
        for (const r of chats) expect(bodyTokens(r.body)).toBeLessThanOrEqual(WINDOW)
        // The three reads did not all fit: the context was compacted on the way.
        expect(events.some((e) => e.type === 'context.compacted')).toBe(true)

        // The window and temperature were sent (Ollama) and shown (all): the meter's window is num_ctx.
        if (provider === 'ollama') expect(new Set(s.windows)).toEqual(new Set([WINDOW]))
        expect(new Set(s.temperatures)).toEqual(new Set([0.2]))
        const messages = events.filter((e) => e.type === 'assistant.message')
        expect(messages).toHaveLength(s.reported.length)
        messages.forEach((m, i) => {
          const ctx = m.context as { usedTokens: number; windowTokens: number; promptSource: string }
          expect(ctx.windowTokens).toBe(WINDOW)
          expect(ctx.usedTokens).toBeLessThanOrEqual(WINDOW)
          // The server's count is used only when it is not below our estimate.
          if (ctx.promptSource === 'reported') expect(ctx.usedTokens).toBe(s.reported[i])
          else expect(ctx.usedTokens).toBeGreaterThan(s.reported[i])
        })
        const sources = messages.map((m) => (m.context as { promptSource: string }).promptSource)
        if (reporting === 'cached') expect(new Set(sources)).toEqual(new Set(['estimated']))
        else expect(sources).toContain('reported')
      }, 60_000)
    }
  }
})
