import type { Browser } from 'playwright-core'
import { startFakeModelServer } from '../test/fake-model-server'
import type { StepwiseEvent } from '../src/shared/protocol'
import { openStore } from '../src/main/store/store'
import {
  newContext,
  project,
  openSocketProbe,
  removeDir,
  startServe,
  tempDir,
  type Serve,
  type SocketProbe,
} from './ui-host'
import { overviewWorkCount, overviewWorkSince, startFrameGaps, stopFrameGaps } from './ui-overview'
import { installLiveProbe, readLiveProbe, sweepTimeline, toolsChipCount, type LiveProbe } from './ui-page'
import { COUNT, percentile } from './ui-stats'
import { log, type BenchRow } from './util'
import { maxOf } from '../src/shared/arrays'

/*
 * Live events on screen: one model turn of CALLS read_file calls, run by the real core
 * behind `stepwise serve --approve auto-edit`, sent from the chat box. The page stamps each
 * timeline row when it is first painted and when it is first painted as ok; the store's
 * `ts` of each tool.started and tool.finished (the same machine clock) gives the latency.
 * Reference: when each of those events arrived on a second, bare WebSocket of the page.
 * RUNS times, each with a fresh host, data dir and page; the median run is reported.
 */

const CALLS = 150
const RUNS = 3
const FILES = 6
/** Mean ms between events for 200 events/s. */
const INTERVAL_FOR_200 = 5

function projectFiles(): Record<string, string> {
  const files: Record<string, string> = {}
  for (let i = 0; i < FILES; i++)
    files[`mod${i}.ts`] =
      Array.from({ length: 40 }, (_, l) => `export const v${i}_${l} = ${l}`).join('\n') + '\n'
  return files
}

interface Analysis {
  latencies: number[]
  wsLatencies: number[]
  nodeLatencies: number[]
  domLatencies: number[]
  toolCalls: number
  burstEvents: number
  burstMs: number
  wsBurstMs: number
  seenStarted: number
  seenOk: number
  wsMissing: number
}

function analyse(events: StepwiseEvent[], probe: LiveProbe, outside: Map<number, number>): Analysis {
  const started = events.filter((e) => e.type === 'tool.started')
  const finished = events.filter((e) => e.type === 'tool.finished')
  if (started.length === 0 || finished.length === 0)
    throw new Error(`the session stored ${events.length} events and no finished tool call`)
  const rowOfCall = new Map(started.map((e) => [e.callId, e.seq]))
  const latencies: number[] = []
  const domLatencies: number[] = []
  const wsLatencies: number[] = []
  const nodeLatencies: number[] = []
  let seenStarted = 0
  let seenOk = 0
  for (const e of started) {
    const row = probe.rows[e.seq]
    if (row?.painted !== undefined) {
      seenStarted++
      latencies.push(row.painted - e.ts)
      domLatencies.push(row.dom - e.ts)
    }
  }
  for (const e of finished) {
    const row = probe.rows[rowOfCall.get(e.callId) ?? -1]
    if (row?.okPainted !== undefined && row.okDom !== undefined) {
      seenOk++
      latencies.push(row.okPainted - e.ts)
      domLatencies.push(row.okDom - e.ts)
    }
  }
  for (const e of [...started, ...finished]) {
    const at = probe.arrivals[e.seq]
    if (at !== undefined) wsLatencies.push(at - e.ts)
    const there = outside.get(e.seq)
    if (there !== undefined) nodeLatencies.push(there - e.ts)
  }
  const first = started[0]
  const last = finished[finished.length - 1]
  const burst = events.filter((e) => e.seq >= first.seq && e.seq <= last.seq)
  return {
    latencies,
    wsLatencies,
    nodeLatencies,
    domLatencies,
    toolCalls: started.length,
    burstEvents: burst.length,
    burstMs: last.ts - first.ts,
    wsBurstMs: (probe.arrivals[last.seq] ?? NaN) - (probe.arrivals[first.seq] ?? NaN),
    seenStarted,
    seenOk,
    wsMissing: events.filter((e) => probe.arrivals[e.seq] === undefined).length,
  }
}

interface Run {
  a: Analysis
  p95: number
  wsP95: number
  /** Mean ms between the burst's events, in the store and on the page's bare WebSocket. */
  gap: number
  wsGap: number
  rate: number
  dropped: number
  okAtEnd: number
  chip: number
  /** The timeline overview's own work per frame during the turn (ms), and the page's frame intervals. */
  overview: number[]
  frames: number[]
}

const chatEnabled = (): boolean => {
  const doc = (
    globalThis as unknown as { document: { querySelector(s: string): { disabled?: boolean } | null } }
  ).document
  const el = doc.querySelector('[data-testid="chat-input"]')
  return el !== null && el.disabled !== true
}

/**
 * `burst`: one model turn with all the calls, as fast as the core goes (several times 200/s).
 * `paced`: one call per model turn, the model answering after PACE_MS, which brings the core to
 * about 200 events/s (three events a turn: the model's message, the call's start and its end).
 */
type Pace = 'burst' | 'paced'
const PACE_MS = 4

async function liveRun(browser: Browser, pace: Pace): Promise<Run> {
  const read = Array.from({ length: CALLS }, (_, i) => ({
    name: 'read_file',
    arguments: { path: `mod${i % FILES}.ts` },
  }))
  const model = await startFakeModelServer({
    models: ['coder:1b'],
    turns:
      pace === 'burst'
        ? [{ toolCalls: read }, { text: 'Read them all.' }]
        : [...read.map((call) => ({ toolCalls: [call], delayMs: PACE_MS })), { text: 'Read them all.' }],
  })
  const repo = project(projectFiles())
  const dataDir = tempDir('live-data')
  // One model turn per call in the paced run: allow more model steps than the default 50.
  const settings = openStore(dataDir)
  settings.setSetting('app', JSON.stringify({ maxSteps: CALLS + 10, maxToolCalls: CALLS + 10 }))
  settings.close()
  const context = await newContext(browser)
  let serve: Serve | undefined
  let outside: SocketProbe | undefined
  try {
    serve = await startServe({ repo, dataDir, modelUrl: model.url, approve: 'auto-edit' })
    const page = await context.newPage()
    await page.goto(serve.url)
    await page.waitForFunction(chatEnabled)
    await installLiveProbe(page)
    outside = await openSocketProbe(serve.url)
    await page.getByTestId('chat-input').fill('Read every module')
    const workBefore = await overviewWorkCount(page)
    await startFrameGaps(page)
    await page.getByTestId('send-button').click()
    await page.waitForFunction(
      () => (globalThis as unknown as { __uiBench: LiveProbe }).__uiBench.turnEnded,
      null,
      { timeout: 60_000 },
    )
    // Let the last batch reach the screen, then check the final state of every row.
    await page.waitForTimeout(300)
    const frames = await stopFrameGaps(page)
    const overview = await overviewWorkSince(page, workBefore)
    const probe = await readLiveProbe(page)
    const chip = await toolsChipCount(page)
    const sweep = await sweepTimeline(page, 0)
    await page.close()
    await serve.stop()

    const store = openStore(dataDir)
    const sessionId = probe.sessionId ?? store.listSessions()[0]?.id
    const events = sessionId ? store.listEvents(sessionId) : []
    store.close()
    const a = analyse(events, probe, outside.arrivals)
    if (a.toolCalls !== CALLS) throw new Error(`the core ran ${a.toolCalls} tool calls, expected ${CALLS}`)
    if (a.latencies.length === 0) throw new Error('no tool row was painted while the events arrived')
    const startedSeqs = new Set(events.filter((e) => e.type === 'tool.started').map((e) => e.seq))
    const okAtEnd = sweep.rows.filter(
      ([seq, kind, status]) => startedSeqs.has(seq) && kind === 'tool' && status === 'ok',
    ).length
    const gaps = Math.max(1, a.burstEvents - 1)
    const run: Run = {
      a,
      p95: percentile(a.latencies, 95),
      wsP95: percentile(a.wsLatencies, 95),
      gap: a.burstMs / gaps,
      wsGap: a.wsBurstMs / gaps,
      rate: (1000 * gaps) / Math.max(1, a.burstMs),
      dropped: Math.max(a.toolCalls - okAtEnd, Math.abs(a.toolCalls - chip)),
      okAtEnd,
      chip,
      overview,
      frames,
    }
    if (overview.length === 0) throw new Error('the timeline overview drew nothing while the turn ran')
    log(
      `live: ${a.burstEvents} events in ${a.burstMs} ms (${Math.round(run.rate)}/s); p95 ${run.p95.toFixed(1)} ms ` +
        `(bare WebSocket ${run.wsP95.toFixed(1)} ms); painted on arrival: ${a.seenStarted} started, ${a.seenOk} ok ` +
        `of ${a.toolCalls}; after: ${okAtEnd} ok, chip Tools ${chip}`,
    )
    return run
  } finally {
    outside?.close()
    await serve?.stop()
    await context.close()
    await model.close()
    removeDir(dataDir)
    removeDir(repo)
  }
}

const ms = (x: number): string => `${x.toFixed(1)} ms`

export async function benchLiveEvents(browser: Browser): Promise<BenchRow[]> {
  const paced: Run[] = []
  for (let i = 0; i < RUNS; i++) paced.push(await liveRun(browser, 'paced'))
  const runs: Run[] = []
  for (let i = 0; i < RUNS; i++) runs.push(await liveRun(browser, 'burst'))
  const pacedMid = [...paced].sort((x, y) => x.p95 - y.p95)[RUNS >> 1]
  const mid = [...runs].sort((x, y) => x.p95 - y.p95)[RUNS >> 1]
  const slowest = [...runs].sort((x, y) => y.gap - x.gap)[0]
  const a = mid.a
  const notRendered = 2 * a.toolCalls - a.seenStarted - a.seenOk
  const all = runs.map((r) => ms(r.p95)).join(', ')
  return [
    {
      name: `ui: live event → row painted at ~200 ev/s, p95`,
      unit: 'ms',
      ours: pacedMid.p95,
      refName: 'arrival on a bare WebSocket in the page, p95',
      reference: pacedMid.wsP95,
      target: { maxAbs: 50 },
      note:
        `median run of ${RUNS} (p95s ${paced.map((r) => ms(r.p95)).join(', ')}); ${CALLS} model turns of one ` +
        `read_file each, the model answering after ${PACE_MS} ms: ${paced.map((r) => `${Math.round(r.rate)}/s`).join(', ')} ` +
        `from the core; max ${ms(maxOf(pacedMid.a.latencies))}; dropped ${paced.map((r) => r.dropped).join(', ')}`,
    },
    {
      name: `ui: live event → row painted in a burst, p95 (${CALLS} tool calls)`,
      unit: 'ms',
      ours: mid.p95,
      refName: 'arrival on a bare WebSocket in the page, p95',
      reference: mid.wsP95,
      note:
        `the core's top speed, several times the target's 200/s; information; median run of ${RUNS} (p95s ${all}); its figures: store ts → painted over ${a.latencies.length} of ` +
        `${2 * a.toolCalls} tool events (started, finished) at ${Math.round(mid.rate)} events/s; ` +
        `max ${ms(maxOf(a.latencies))}; in the DOM p95 ${ms(percentile(a.domLatencies, 95))}; ` +
        `${notRendered} not rendered (scrolled past: many rows per frame, follow mode shows the newest); ` +
        `a WebSocket client outside the page (Node) gets the events in p95 ` +
        `${a.nodeLatencies.length ? ms(percentile(a.nodeLatencies, 95)) : '—'}: the rest of the delay is in the page`,
    },
    {
      name: `ui: overview's own work per frame while a turn streams at ~200 ev/s, p95`,
      unit: 'ms',
      ours: percentile(pacedMid.overview, 95),
      refName: "the page's frame interval, p95",
      reference: percentile(pacedMid.frames, 95),
      target: { maxAbs: 16 },
      note:
        `the paced run above: ${pacedMid.overview.length} frames with overview work (spans from the new events, ` +
        `the canvas redrawn, its running bars growing); median ${ms(percentile(pacedMid.overview, 50))}, ` +
        `max ${ms(maxOf(pacedMid.overview))}; ` +
        `in the burst runs p95 ${runs.map((r) => ms(percentile(r.overview, 95))).join(', ')}`,
    },
    {
      name: 'ui: live burst, ms between events (≥ 200/s)',
      unit: 'ms',
      ours: slowest.gap,
      refName: 'arrival on a bare WebSocket in the page',
      reference: slowest.wsGap,
      target: { maxAbs: INTERVAL_FOR_200 },
      note:
        `slowest of ${RUNS} runs: ${slowest.a.burstEvents} events in ${slowest.a.burstMs} ms from the first ` +
        `tool.started to the last tool.finished = ${Math.round(slowest.rate)} events/s from the core` +
        (slowest.rate < 200
          ? ' — FEWER than the 200/s this target needs: the latency row was measured under less load'
          : '') +
        ` (runs: ${runs.map((r) => `${Math.round(r.rate)}/s`).join(', ')})`,
    },
    {
      name: 'ui: live events dropped',
      unit: COUNT,
      ours: [...runs, ...paced].reduce((n, r) => n + r.dropped, 0),
      refName: 'missing on a bare WebSocket in the page',
      reference: [...runs, ...paced].reduce((n, r) => n + r.a.wsMissing, 0),
      target: { maxAbs: 0 },
      note:
        `over ${2 * RUNS} runs of ${CALLS} tool calls (paced and burst): after each turn the tool rows showing ok (scrolled through) ` +
        `were ${[...paced, ...runs].map((r) => r.okAtEnd).join(', ')} and the Tools chip said ${[...paced, ...runs].map((r) => r.chip).join(', ')}`,
    },
  ]
}
