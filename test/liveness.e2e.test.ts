/**
 * A CLI run killed mid-stream, end to end: the built CLI on plain Node, a real git repo, a real
 * SQLite file and a Chat Completions server on 127.0.0.1 that streams a few deltas and then
 * stalls. Whatever ends the process — kill -9, SIGTERM, SIGHUP — every event it printed stays
 * stored, `sessions list` says interrupted (not running), time travel needs no --force, and
 * `sessions continue` takes the chat on.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { buildCli, committedRepo, editArgs, runCli as runBuiltCli } from './cli-harness'

let CLI = ''
const runCli = (args: string[]) => runBuiltCli(CLI, args)

beforeAll(() => {
  CLI = buildCli('stepwise-liveness-e2e')
}, 180_000)

let repo: string
let dataDir: string
let model: ChatServer | undefined

beforeEach(() => {
  repo = committedRepo('stepwise-liveness-repo-', { 'a.txt': 'one\n' })
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-liveness-data-'))
})

afterEach(async () => {
  await model?.close()
  model = undefined
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

interface ChatServer {
  url: string
  bodies: Array<{ messages: Array<{ role: string; content: unknown }> }>
  close(): Promise<void>
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`

/**
 * The first request streams `first` deltas (none: the model is still "thinking") and stalls;
 * every later one answers "Done."
 */
async function chatServer(first: string[] = ['Working', ' on', ' it']): Promise<ChatServer> {
  const bodies: ChatServer['bodies'] = []
  const sockets = new Set<Socket>()
  const srv = http.createServer((req, res) => {
    let raw = ''
    req.on('data', (c: Buffer) => (raw += c.toString()))
    req.on('end', () => {
      bodies.push(JSON.parse(raw) as ChatServer['bodies'][number])
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      if (bodies.length === 1) {
        for (const t of first) res.write(chunk({ content: t }))
        return // …and nothing more: the process is killed mid-stream
      }
      res.end(chunk({ content: 'Done.' }) + chunk({}, 'stop') + 'data: [DONE]\n\n')
    })
  })
  srv.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1`,
    bodies,
    close: async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => srv.close(() => resolve()))
    },
  }
}

type Json = Record<string, unknown>
const jsonLines = (text: string): Json[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Json)

/**
 * `edit --json` until its `deltas`-th delta is printed (0: until its model request is in flight),
 * then `signal`; its printed events and exit.
 */
async function editKilled(signal: NodeJS.Signals, deltas: number) {
  model = await chatServer(['Working', ' on', ' it'].slice(0, deltas))
  const child = spawn(
    process.execPath,
    [
      CLI,
      ...editArgs({ repo, dataDir, baseUrl: model.url }, 'Say hello', '--json', '--approve', 'auto-edit'),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, OPENAI_API_KEY: '' } },
  )
  let stdout = ''
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, sig) => resolve({ code, signal: sig })),
  )
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString()
      if (deltas > 0 && jsonLines(stdout).filter((e) => e.type === 'assistant.delta').length >= deltas)
        resolve()
    })
    if (deltas === 0)
      void (async () => {
        while (model!.bodies.length === 0) await new Promise((r) => setTimeout(r, 25))
        resolve()
      })()
    void exited.then(() => reject(new Error(`edit ended before streaming: ${stderr}`)))
  })
  child.kill(signal)
  const exit = await exited
  return { exit, printed: jsonLines(stdout), stderr }
}

async function storedEvents(id: string): Promise<Json[]> {
  const res = await runCli(['sessions', 'export', id, '--format', 'json', '--data-dir', dataDir])
  expect(res.code).toBe(0)
  return (JSON.parse(res.stdout) as { events: Json[] }).events
}

async function listed(): Promise<Json> {
  const res = await runCli(['sessions', 'list', '--json', '--data-dir', dataDir])
  return (JSON.parse(res.stdout) as Json[])[0]
}

async function expectEnded(
  signal: NodeJS.Signals,
  exit: { code: number | null; signal: string | null },
  printed: Json[],
) {
  if (signal === 'SIGKILL') {
    expect(exit.signal).toBe('SIGKILL')
  } else {
    // Stopped as Ctrl+C stops it: its end recorded, the interrupted exit code.
    expect(exit.code).toBe(130)
    expect(printed.at(-2)).toMatchObject({ type: 'session.finished', reason: 'interrupted' })
    expect(printed.at(-1)).toMatchObject({ type: 'turn.finished', reason: 'interrupted' })
  }
}

/** Not "running" for good, in the list and `show`; time travel takes it without --force. */
async function expectInterrupted(id: string) {
  expect(await listed()).toMatchObject({ id, status: 'interrupted' })
  const show = await runCli(['sessions', 'show', id, '--data-dir', dataDir])
  expect(show.stdout).toContain(`session ${id} · interrupted`)
  // Nothing to undo here: exit 0 with "nothing", where a running session is refused (exit 1).
  const undo = await runCli(['sessions', 'undo', id, '--yes', '--data-dir', dataDir])
  expect(undo.stderr).not.toMatch(/running/)
  expect(undo.code).toBe(0)
}

async function continueChat(id: string) {
  return runCli(['sessions', 'continue', id, 'Go on', '--json', '--data-dir', dataDir])
}

describe.each<NodeJS.Signals>(['SIGKILL', 'SIGTERM', 'SIGHUP'])('edit killed (%s)', (signal) => {
  it('mid-stream: every printed event stays stored, and the session reads as interrupted', async () => {
    const { exit, printed } = await editKilled(signal, 3)
    const id = String(printed[0].sessionId)
    await expectEnded(signal, exit, printed)
    const stored = await storedEvents(id)
    for (const e of printed) expect(stored).toContainEqual(e)
    expect(stored.filter((e) => e.type === 'assistant.delta').map((e) => e.text)).toEqual([
      'Working',
      ' on',
      ' it',
    ])
    await expectInterrupted(id)
    // Not refused as running: continuing from the cut answer is the transcript's part (below).
    expect((await continueChat(id)).stderr).not.toMatch(/running/)
  }, 60_000)

  it('waiting on the model: interrupted, then `sessions continue` takes the chat on', async () => {
    const { exit, printed } = await editKilled(signal, 0)
    const id = String(printed[0].sessionId)
    await expectEnded(signal, exit, printed)
    await expectInterrupted(id)
    const cont = await continueChat(id)
    expect(cont.code).toBe(0)
    const events = jsonLines(cont.stdout)
    expect(events.find((e) => e.type === 'user.message')).toMatchObject({ sessionId: id, text: 'Go on' })
    expect(events.at(-2)).toMatchObject({ type: 'session.finished', reason: 'done' })
    expect(events.at(-1)).toMatchObject({ type: 'turn.finished', reason: 'done' })
    expect(model!.bodies).toHaveLength(2)
    const sent = model!.bodies[1].messages
    expect(sent.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['Say hello', 'Go on'])
    expect(await listed()).toMatchObject({ id, status: 'done' })
  }, 60_000)
})

// Continuing right after a cut answer: the transcript closes the cut turn (providers/transcript.ts).
it('mid-stream kill, then `sessions continue` answers', async () => {
  const { printed } = await editKilled('SIGKILL', 3)
  const cont = await continueChat(String(printed[0].sessionId))
  expect(cont.code).toBe(0)
}, 60_000)

describe('sessions continue', () => {
  it('edit --resume continues the same chat with edit’s exit codes; an unknown id is a usage error', async () => {
    model = await chatServer()
    // The first request stalls: the idle timeout (1 s here) fires and the retry policy asks again.
    const t0 = Date.now()
    const first = await runCli([
      ...editArgs({ repo, dataDir, baseUrl: model.url }, 'Say hello', '--json', '--idle-timeout', '1'),
    ])
    const id = String(jsonLines(first.stdout)[0].sessionId)
    expect(first.code).toBe(0)
    expect(Date.now() - t0).toBeLessThan(30_000)
    expect(model.bodies).toHaveLength(2)
    const before = model.bodies.length

    const resumed = await runCli([
      ...editArgs({ repo, dataDir, baseUrl: model.url }, 'Try again', '--json', '--resume', id),
    ])
    expect(resumed.code).toBe(0)
    expect(jsonLines(resumed.stdout).at(-2)).toMatchObject({ sessionId: id, type: 'session.finished' })
    expect(jsonLines(resumed.stdout).at(-1)).toMatchObject({ sessionId: id, type: 'turn.finished', turn: 2 })
    expect(model.bodies).toHaveLength(before + 1)
    expect((await runCli(['sessions', 'list', '--json', '--data-dir', dataDir])).stdout).not.toContain(
      '"status": "running"',
    )

    const unknown = await runCli(['sessions', 'continue', 'nope', 'x', '--data-dir', dataDir])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/no session matches "nope"/)
  }, 60_000)
})
