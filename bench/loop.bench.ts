import { databaseOf } from '../src/main/store/handle'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { ModelProvider } from '../src/main/providers/types'
import { startSession } from '../src/main/session/start'
import { Database } from '../src/main/store/sqlite'
import { openStore } from '../src/main/store/store'
import type { Store } from '../src/main/store/types'
import { callTool, okFields, toolContext } from './tools'
import { codeLines } from './tree'
import { isMain, log, median, report, since, timed, type BenchRow } from './util'

/*
 * Agent-loop overhead: 1,000 steps of a model that answers instantly, each step
 * one read_file of a small file, through the real Agent (startSession with a
 * provider override) on a real WAL SQLite file. Reference: the same 1,000
 * read_file calls made directly, so the ratio is the loop's own cost (events,
 * transcript, validation). After the runs the database is reopened and every
 * event counted, to prove they were written. Also: the store's raw append rate.
 */

const STEPS = 1000
const RUNS = 3
const SMALL_FILES = 40
const APPENDS = 5000

/** A model that never waits: read_file calls until `steps`, then a short answer. Logs traffic as real providers do. */
function instantProvider(files: readonly string[], steps: number): ModelProvider {
  let turn = 0
  return {
    id: 'openai-chat',
    model: 'bench-instant',
    baseUrl: 'http://127.0.0.1:1/v1',
    async streamTurn(request, handlers) {
      // The model window's summary request (no tools) when the transcript outgrows the window:
      // answered at once, without taking a step of the scripted run.
      if (request.tools.length === 0)
        return { text: 'The files were read.', toolCalls: [], usage: { inputTokens: 10, outputTokens: 4 } }
      const n = turn++
      handlers.onTraffic({
        direction: 'request',
        provider: 'openai-chat',
        url: 'bench://instant',
        body: `{"turn":${n}}`,
      })
      handlers.onTraffic({
        direction: 'response',
        provider: 'openai-chat',
        url: 'bench://instant',
        status: 200,
        body: '{}',
      })
      if (n >= steps) {
        handlers.onText('Done.')
        return { text: 'Done.', toolCalls: [], usage: { inputTokens: 10, outputTokens: 2 } }
      }
      const args = JSON.stringify({ path: files[n % files.length] })
      return {
        text: '',
        toolCalls: [{ id: `call_${n}`, name: 'read_file', arguments: args }],
        usage: { inputTokens: 10, outputTokens: 5 },
      }
    },
  }
}

function makeRepo(): { repo: string; files: string[] } {
  const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-bench-loop-repo-')))
  const lines = codeLines(0x100b, SMALL_FILES * 30)
  const files: string[] = []
  for (let i = 0; i < SMALL_FILES; i++) {
    const rel = `src/mod${i % 4}/file${i}.ts`
    fs.mkdirSync(path.join(repo, path.dirname(rel)), { recursive: true })
    fs.writeFileSync(path.join(repo, rel), lines.slice(i * 30, i * 30 + 30).join('\n') + '\n')
    files.push(rel)
  }
  return { repo, files }
}

async function runSession(store: Store, repo: string, files: readonly string[], steps: number) {
  const session = await startSession(store, {
    task: 'read every file',
    repo,
    provider: { provider: 'openai-chat', model: 'bench-instant' },
    providerOverride: instantProvider(files, steps),
    policy: 'auto-edit',
    maxSteps: steps + 1,
    // One read per model step: the turn's tool-call limit must not end the run before its last step.
    maxToolCalls: steps,
    approver: {
      requestApproval: async () => {
        throw new Error('the benchmark makes no changes')
      },
    },
  })
  const { seconds, value: outcome } = await timed(() => session.run(new AbortController().signal))
  if (outcome.reason !== 'done' || outcome.steps !== steps + 1)
    throw new Error(`loop ended ${outcome.reason} after ${outcome.steps} steps`)
  return { sessionId: session.sessionId, seconds }
}

export async function benchLoop(): Promise<BenchRow[]> {
  const { repo, files } = makeRepo()
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-bench-loop-data-'))
  try {
    const store = openStore(dataDir)
    await runSession(store, repo, files, 100) // warm-up: JIT, page cache, prepared statements
    const loopRuns: number[] = []
    const sessions: string[] = []
    const direct: number[] = []
    const ctx = await toolContext(repo)
    const directCalls = async () => {
      for (let n = 0; n < STEPS; n++)
        okFields(await callTool(ctx, 'read_file', { path: files[n % files.length] }))
    }
    await directCalls()
    for (let r = 0; r < RUNS; r++) {
      const run = await runSession(store, repo, files, STEPS)
      loopRuns.push(run.seconds)
      sessions.push(run.sessionId)
      direct.push((await timed(directCalls)).seconds)
    }
    store.close()

    // Durable: a fresh connection on the same file sees every event of every run.
    const reopened = openStore(dataDir)
    const mode = String(databaseOf(reopened).pragma('journal_mode', { simple: true }))
    // session and turn started, user.message, 3 per tool step, final delta + message, turn and session finished
    const perSession = 3 * STEPS + 7
    // A 1,000-step session outgrows the window: compaction is part of the loop's real cost.
    let compactions = 0
    for (const id of sessions) {
      const all = reopened.listEvents(id)
      const events = all.filter((e) => e.type !== 'context.compacted')
      compactions += all.length - events.length
      const finished = events.filter((e) => e.type === 'tool.finished').length
      if (events.length !== perSession || finished !== STEPS) {
        throw new Error(
          `session ${id}: ${events.length} events stored (${finished} tool.finished), expected ${perSession}: ${typeCounts(events)}`,
        )
      }
    }
    log(`compactions: ${compactions / sessions.length} per ${STEPS}-step session`)
    reopened.close()
    log(
      `durable: reopened ${mode.toUpperCase()} database holds ${perSession} events for each of ${sessions.length} runs`,
    )

    const loopMs = (median(loopRuns) * 1000) / STEPS
    const directMs = (median(direct) * 1000) / STEPS
    const append = appendRates(dataDir)
    return [
      {
        name: `loop: ms per step (${STEPS} read_file steps)`,
        unit: 'ms',
        ours: loopMs,
        refName: 'direct read_file',
        reference: directMs,
        target: { maxAbs: 5 },
        note: `median of ${RUNS} sessions; loop's own cost ${(loopMs - directMs).toFixed(3)} ms/step; ${perSession} events per session durable (reopened, counted)`,
      },
      {
        name: 'store: appendEvent rate',
        unit: 'events/s',
        ours: append.store,
        refName: 'raw INSERT',
        reference: append.raw,
        note: `${APPENDS} tool.finished events, one transaction each, WAL + synchronous=NORMAL; the raw side skips validation and the seq lookup`,
      },
    ]
  } finally {
    fs.rmSync(repo, { recursive: true, force: true })
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

/** events/s through store.appendEvent, and through a bare prepared INSERT with the same pragmas. */
function appendRates(dataDir: string): { store: number; raw: number } {
  const dir = path.join(dataDir, 'append')
  const store = openStore(dir)
  const session = store.createSession({ repo: dir, title: 'append', provider: 'openai-chat', model: 'none' })
  const result = { ok: true, path: 'src/a.ts', total_lines: 30, content: '1\tconst a = 1\n'.repeat(30) }
  const append = (i: number) =>
    store.appendEvent(session.id, {
      type: 'tool.finished',
      callId: `c${i}`,
      name: 'read_file',
      ok: true,
      result,
      durationMs: 0.1,
    })
  for (let i = 0; i < 200; i++) append(i)
  let start = performance.now()
  for (let i = 0; i < APPENDS; i++) append(i)
  const storeRate = APPENDS / since(start)
  store.close()

  const db = new Database(path.join(dir, 'raw.db'))
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.exec(
    'CREATE TABLE events (session_id TEXT, seq INTEGER, ts INTEGER, type TEXT, payload TEXT, PRIMARY KEY (session_id, seq))',
  )
  const insert = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?)')
  const payload = JSON.stringify({ callId: 'c', name: 'read_file', ok: true, result, durationMs: 0.1 })
  for (let i = 0; i < 200; i++) insert.run('warm', i, Date.now(), 'tool.finished', payload)
  start = performance.now()
  for (let i = 0; i < APPENDS; i++) insert.run('s', i, Date.now(), 'tool.finished', payload)
  const rawRate = APPENDS / since(start)
  db.close()
  return { store: storeRate, raw: rawRate }
}

if (isMain(import.meta)) report('agent loop overhead', await benchLoop())

/** `type ×count` for each event type, to say which kind of event a count check missed. */
function typeCounts(events: readonly { type: string }[]): string {
  const counts = new Map<string, number>()
  for (const e of events) counts.set(e.type, (counts.get(e.type) ?? 0) + 1)
  return [...counts].map(([type, n]) => `${type} ×${n}`).join(', ')
}
