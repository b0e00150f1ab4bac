import { databaseOf } from '../src/main/store/handle'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'
import { createSnapshotter } from '../src/main/snapshot/snapshotter'
import { openStore } from '../src/main/store/store'
import type { Store } from '../src/main/store/types'
import { exportBundle, importBundle } from '../src/main/timetravel/bundle'
import { isMain, log, median, report, timed, type BenchRow } from './util'
import { snapshotTablesOf } from '../src/main/store/snapshot-tables'

/*
 * Session bundles: export and import of a 1,000-step session (assistant.message,
 * tool.started, tool.finished per step, the model traffic, and a few checkpoints
 * of a small tree) must each take ≤ 2 s. Reference, in the same run: the same
 * data as one JSON.stringify + gzip (export) and gunzip + JSON.parse (import).
 */

const STEPS = 1000
const RUNS = 5

async function buildSession(store: Store, repo: string): Promise<string> {
  for (let i = 0; i < 40; i++)
    fs.writeFileSync(path.join(repo, `file${i}.ts`), `export const value${i} = ${i}\n`.repeat(50 + i))
  const paths = fs.readdirSync(repo).sort()
  const snaps = createSnapshotter(snapshotTablesOf(store), { root: repo, listFiles: async () => paths })
  const session = store.createSession({ repo, title: 'bench', provider: 'openai', model: 'gpt-4.1-mini' })
  const baseline = await snaps.takeSnapshot({ sessionId: session.id, label: 'baseline' })
  store.appendEvent(session.id, {
    type: 'session.started',
    protocolVersion: 1,
    repo,
    provider: 'openai',
    model: 'gpt-4.1-mini',
    approvalPolicy: 'auto-edit',
    maxSteps: STEPS + 1,
    baselineSnapshotId: baseline.info.id,
  })
  store.appendEvent(session.id, { type: 'user.message', text: 'Refactor the values.' })
  for (let step = 1; step <= STEPS; step++) {
    const callId = `call_${step}`
    const args = { path: `file${step % 40}.ts` }
    store.appendEvent(session.id, {
      type: 'assistant.message',
      step,
      text: `Step ${step}: reading ${args.path} to check the values.`,
      toolCalls: [{ id: callId, name: 'read_file', arguments: JSON.stringify(args) }],
      usage: { inputTokens: 1200 + step, outputTokens: 40 },
      durationMs: 800,
      provider: 'openai',
      model: 'gpt-4.1-mini',
    })
    store.appendEvent(session.id, { type: 'tool.started', callId, name: 'read_file', args, mutating: false })
    store.appendEvent(session.id, {
      type: 'tool.finished',
      callId,
      name: 'read_file',
      ok: true,
      result: { ok: true, content: `export const value${step % 40} = ${step % 40}\n`.repeat(5), lines: 5 },
      durationMs: 2,
    })
    store.appendTraffic(session.id, {
      direction: 'request',
      provider: 'openai',
      url: 'https://api.openai.com/v1/responses',
      body: JSON.stringify({ model: 'gpt-4.1-mini', input: [{ role: 'user', content: `step ${step}` }] }),
    })
    store.appendTraffic(session.id, {
      direction: 'response',
      provider: 'openai',
      url: 'https://api.openai.com/v1/responses',
      status: 200,
      body: `data: {"type":"response.output_text.delta","delta":"Step ${step}"}\n\n`,
    })
    if (step % 200 === 0) {
      fs.appendFileSync(path.join(repo, `file${step % 40}.ts`), `// step ${step}\n`)
      const cp = await snaps.takeSnapshot({ sessionId: session.id })
      store.appendEvent(session.id, { type: 'checkpoint.created', snapshotId: cp.info.id, callId, paths: [] })
    }
  }
  return session.id
}

/** The reference: the same rows and blobs as one JSON document, gzipped. */
function naiveDump(store: Store, id: string): Buffer {
  const snapshots = databaseOf(store).prepare('SELECT * FROM snapshots WHERE session_id = ?').all(id)
  const blobs = (
    databaseOf(store).prepare('SELECT hash, size, encoding, data FROM blobs').all() as Array<{ data: Buffer }>
  ).map((b) => ({ ...b, data: b.data.toString('base64') }))
  const doc = {
    session: store.getSession(id),
    events: store.listEvents(id),
    traffic: store.listTraffic(id),
    snapshots,
    blobs,
  }
  return zlib.gzipSync(JSON.stringify(doc))
}

export async function benchBundle(): Promise<BenchRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-bench-bundle-'))
  try {
    const repo = path.join(dir, 'repo')
    fs.mkdirSync(repo)
    const store = openStore(path.join(dir, 'source'))
    const id = await buildSession(store, repo)
    const file = path.join(dir, 'session.stepwise')
    const dumpFile = path.join(dir, 'session.json.gz')
    const ex: number[] = []
    const exRef: number[] = []
    const im: number[] = []
    const imRef: number[] = []
    let bytes = 0
    let events = 0
    for (let run = 0; run < RUNS; run++) {
      const e = await timed(() => exportBundle(store, id, file))
      ex.push(e.seconds)
      bytes = e.value.bytes
      events = e.value.events
      exRef.push((await timed(() => fs.writeFileSync(dumpFile, naiveDump(store, id)))).seconds)
      const target = openStore(path.join(dir, `target${run}`))
      im.push((await timed(() => importBundle(target, file))).seconds)
      target.close()
      imRef.push(
        (await timed(() => JSON.parse(zlib.gunzipSync(fs.readFileSync(dumpFile)).toString('utf8')))).seconds,
      )
    }
    store.close()
    log(
      `${events} events; bundle ${(bytes / 1024).toFixed(0)} KB, JSON + gzip ${(fs.statSync(dumpFile).size / 1024).toFixed(0)} KB`,
    )
    const note = `1,000 steps (${events} events, 2,000 traffic entries, 6 snapshots of 40 files); median of ${RUNS}`
    return [
      {
        name: 'bundle: export, 1,000 steps',
        unit: 's',
        ours: median(ex),
        refName: 'JSON.stringify + gzip',
        reference: median(exRef),
        target: { maxAbs: 2 },
        note,
      },
      {
        name: 'bundle: import, 1,000 steps',
        unit: 's',
        ours: median(im),
        refName: 'gunzip + JSON.parse only',
        reference: median(imRef),
        target: { maxAbs: 2 },
        note: 'ours validates every event, verifies every blob and writes SQLite in one transaction',
      },
    ]
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (isMain(import.meta)) report('Session bundles', await benchBundle())
