import os from 'node:os'
import type { Browser } from 'playwright-core'
import { startFakeModelServer } from '../test/fake-model-server'
import {
  CLI,
  cleanUp,
  launchBrowser,
  newContext,
  project,
  removeDir,
  requireBuild,
  startServe,
  tempDir,
  type Serve,
} from './ui-host'
import { benchApprovalScrolls } from './ui-approval'
import { benchDensity } from './ui-density'
import { benchLiveEvents } from './ui-live'
import {
  overviewWorkCount,
  overviewWorkSince,
  setOverviewHidden,
  startFrameGaps,
  stopFrameGaps,
  twoFrames,
  wheelOverview,
} from './ui-overview'
import { fetchEventsTimed, loadSessionTimed, sweepTimeline } from './ui-page'
import { writeLongSession } from './ui-session'
import { COUNT, percentile } from './ui-stats'
import { isMain, log, median, report, runProgram, since, timed, type BenchRow } from './util'
import { maxOf, pushAll } from '../src/shared/arrays'

/*
 * The app in a browser (issue 3), against the built `stepwise serve` in Debian's Chromium:
 *  1. a stored 10,000-step session opens with its timeline painted within 1 s, and
 *     scrolling it keeps ≤ 300 elements in the timeline (virtualized). Reference: the
 *     same events fetched over the host's WebSocket, in the page.
 *  2. live events (see ui-live.ts): each tool step painted within 50 ms of being stored,
 *     at ≥ 200 events/s, none dropped. Reference: arrival on a bare WebSocket.
 *  3. cold start of the web host to an enabled chat box ≤ 1.5 s. Reference: the CLI's
 *     own cold start (`--version`).
 *  4. the timeline's overview (issue 15): the 10,000-step session opens with it ≤ 300 ms
 *     later than with it hidden (the reference: today's first paint, same run, alternated);
 *     zooming it with the wheel, and a turn streaming at ~200 events/s (ui-live.ts), cost
 *     ≤ 16 ms of its own work per frame at p95. Reference: the page's frame interval.
 *  5. an approval shows the change first (issue 24, ui-approval.ts): no scroll to see a change
 *     at line 61 of a 100-line file, at 1440×900 and 1024×700.
 *  6. reading at a glance (issue 24, ui-density.ts): timeline steps wholly on one 1440×900 screen
 *     (≥ 16, twice the 8 before the dense rows), and the page's first paint.
 * The fake model server stands in for Ollama; everything else is the real app.
 */

const STEPS = 10_000
const OPEN_RUNS = 3
const WHEEL_FRAMES = 60
const BAR = '[data-testid="timeline-bar"]'
const SCROLL_POSITIONS = 60
const COLD_RUNS = 5

const README = { 'README.md': '# bench\n', 'main.ts': 'export const main = 1\n' }

export async function benchLongSession(browser: Browser): Promise<BenchRow[]> {
  const repo = project(README)
  const dataDir = tempDir('long-data')
  const model = await startFakeModelServer({ models: ['coder:1b'] })
  const context = await newContext(browser)
  let serve: Serve | undefined
  try {
    const made = await timed(() => writeLongSession(dataDir, repo, STEPS))
    const { sessionId, lastStepSeq, events, steps } = made.value
    log(`session: ${steps} timeline steps from ${events} events, written in ${made.seconds.toFixed(1)} s`)
    serve = await startServe({ repo, dataDir, modelUrl: model.url })
    const url = serve.url
    const page = await context.newPage()
    const openWork: number[] = []
    const open = async (overview = true): Promise<number> => {
      await page.goto(url)
      await page.locator(`[data-testid="session-list-item"][data-session-id="${sessionId}"]`).waitFor()
      await setOverviewHidden(page, !overview)
      const before = await overviewWorkCount(page)
      const ms = await loadSessionTimed(page, sessionId, lastStepSeq, overview ? BAR : undefined)
      // The overview's own part of it, as it timed itself: noise on the machine does not add to this.
      if (overview) {
        await twoFrames(page)
        openWork.push((await overviewWorkSince(page, before)).reduce((a, b) => a + b, 0))
      }
      return ms
    }
    const fetchEvents = async (): Promise<number> => {
      const got = await fetchEventsTimed(page, sessionId)
      if (got.events !== events)
        throw new Error(`session/events returned ${got.events} events, not ${events}`)
      return got.ms
    }
    // Untimed warm-up of both (page cache, JIT), then alternating rounds.
    await open(false)
    await open()
    await fetchEvents()
    const opened: number[] = []
    const bare: number[] = []
    const fetched: number[] = []
    for (let run = 0; run < OPEN_RUNS; run++) {
      if (run % 2 === 1) fetched.push(await fetchEvents())
      if (run % 2 === 1) bare.push(await open(false))
      opened.push(await open())
      if (run % 2 === 0) bare.push(await open(false))
      if (run % 2 === 0) fetched.push(await fetchEvents())
    }
    // The page shows the session with its overview: zoom it in and out with the wheel.
    await open()
    const before = await overviewWorkCount(page)
    await startFrameGaps(page)
    await wheelOverview(page, WHEEL_FRAMES)
    const gaps = await stopFrameGaps(page)
    const wheelWork = await overviewWorkSince(page, before)
    if (wheelWork.length < WHEEL_FRAMES / 2)
      throw new Error(`the overview drew ${wheelWork.length} frames for ${WHEEL_FRAMES} wheel events`)
    // The page shows the session now (the last round ended with it open).
    const sweep = await sweepTimeline(page, SCROLL_POSITIONS)
    log(
      `open: ${opened.map((ms) => ms.toFixed(0)).join(', ')} ms (overview hidden: ` +
        `${bare.map((ms) => ms.toFixed(0)).join(', ')} ms); session/events: ` +
        `${fetched.map((ms) => ms.toFixed(0)).join(', ')} ms; scroll: ${sweep.positions} positions, ` +
        `${sweep.rows.length} distinct rows seen, at most ${sweep.maxRows} rows and ${sweep.maxNodes} elements at once`,
    )
    if (sweep.rows.length < SCROLL_POSITIONS)
      throw new Error(`scrolling showed only ${sweep.rows.length} distinct rows: the timeline did not scroll`)
    return [
      {
        name: `ui: open a ${STEPS.toLocaleString('en-US')}-step session, click → painted`,
        unit: 's',
        ours: median(opened) / 1000,
        refName: 'session/events over WebSocket',
        reference: median(fetched) / 1000,
        target: { maxAbs: 1 },
        note:
          `${events.toLocaleString('en-US')} events; median of ${OPEN_RUNS} (page reloaded each time); from the click ` +
          `until the newest row is on screen and its frame rendered; the reference is the fetch-and-parse part of it`,
      },
      {
        name: `ui: overview's cost on opening the ${STEPS.toLocaleString('en-US')}-step session`,
        unit: 's',
        ours: median(opened) / 1000 - median(bare) / 1000,
        refName: 'click → painted with the overview hidden',
        reference: median(bare) / 1000,
        target: { maxAbs: 0.3 },
        note:
          `median with the overview (${(median(opened) / 1000).toFixed(3)} s, its bars on the page) minus the median ` +
          `with it hidden, ${OPEN_RUNS} of each alternated, page reloaded each time; the overview's own work ` +
          `(spans from all events, first draw) as it timed itself: ${openWork.map((x) => x.toFixed(0)).join(', ')} ms`,
      },
      {
        name: `ui: overview's own work per frame while zooming the ${STEPS.toLocaleString('en-US')}-step session, p95`,
        unit: 'ms',
        ours: percentile(wheelWork, 95),
        refName: "the page's frame interval, p95",
        reference: percentile(gaps, 95),
        target: { maxAbs: 16 },
        note:
          `${WHEEL_FRAMES} wheel events one a frame (in, then out), ${wheelWork.length} frames drawn; ` +
          `max ${maxOf(wheelWork).toFixed(1)} ms, median ${median(wheelWork).toFixed(1)} ms`,
      },
      {
        name: 'ui: timeline elements while scrolling it',
        unit: COUNT,
        ours: sweep.maxNodes,
        refName: 'timeline rows',
        reference: steps,
        target: { maxAbs: 300 },
        note:
          `most elements inside the timeline list over ${sweep.positions} scroll positions top to bottom ` +
          `(two frames each); at most ${sweep.maxRows} rows rendered at once`,
      },
    ]
  } finally {
    await serve?.stop()
    await context.close()
    await model.close()
    removeDir(dataDir)
    removeDir(repo)
  }
}

function chatInputEnabled(): boolean {
  const doc = (
    globalThis as unknown as { document: { querySelector(s: string): { disabled?: boolean } | null } }
  ).document
  const el = doc.querySelector('[data-testid="chat-input"]')
  return el !== null && el.disabled !== true
}

async function benchColdStart(browser: Browser): Promise<BenchRow[]> {
  const repo = project(README)
  const model = await startFakeModelServer({ models: ['coder:1b'] })
  /** Seconds from the spawn until the URL line, per timed run. */
  const printed: number[] = []
  /** Seconds from spawning `stepwise serve` (fresh data dir, fresh browser context) to an enabled chat box. */
  const coldStart = async (): Promise<number> => {
    const dataDir = tempDir('cold-data')
    const context = await newContext(browser)
    let serve: Serve | undefined
    try {
      const start = performance.now()
      serve = await startServe({ repo, dataDir, modelUrl: model.url })
      printed.push(since(start))
      const page = await context.newPage()
      await page.goto(serve.url)
      await page.waitForFunction(chatInputEnabled, null, { polling: 'raf', timeout: 15_000 })
      return since(start)
    } finally {
      await serve?.stop()
      await context.close()
      removeDir(dataDir)
    }
  }
  const version = async (): Promise<number> =>
    (await timed(() => runProgram(process.execPath, [CLI, '--version']))).seconds
  try {
    await coldStart()
    await version()
    printed.length = 0
    const ours: number[] = []
    const reference: number[] = []
    for (let run = 0; run < COLD_RUNS; run++) {
      if (run % 2 === 1) reference.push(await version())
      ours.push(await coldStart())
      if (run % 2 === 0) reference.push(await version())
    }
    log(
      `cold start: ${ours.map((s) => (s * 1000).toFixed(0)).join(', ')} ms; --version: ` +
        `${reference.map((s) => (s * 1000).toFixed(0)).join(', ')} ms`,
    )
    return [
      {
        name: 'ui: web host cold start → chat box enabled',
        unit: 's',
        ours: median(ours),
        refName: 'stepwise --version',
        reference: median(reference),
        target: { maxAbs: 1.5 },
        note:
          `median of ${COLD_RUNS} after one untimed run of each; Chromium already running, a fresh context and ` +
          `data dir each time; from spawning \`serve\` to the page at its URL having the chat box enabled ` +
          `(the URL line came after ${(median(printed) * 1000).toFixed(0)} ms)`,
      },
    ]
  } finally {
    await model.close()
    removeDir(repo)
  }
}

export async function benchUi(): Promise<BenchRow[]> {
  requireBuild()
  const browser = await launchBrowser()
  const rows: BenchRow[] = []
  const parts: Array<[string, (b: Browser) => Promise<BenchRow[]>]> = [
    ['open a stored 10,000-step session', benchLongSession],
    ['live events on screen', benchLiveEvents],
    ['web host cold start', benchColdStart],
    ['the change first in an approval', benchApprovalScrolls],
    ['steps on one screen, first paint', benchDensity],
  ]
  try {
    for (const [label, run] of parts) {
      // Other work on the machine shows in every figure here (the page, the host and the core share the cores).
      log(`${label}: load average ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores`)
      try {
        pushAll(rows, await run(browser))
      } catch (err) {
        rows.push({
          name: `ui: ${label}`,
          unit: 's',
          ours: NaN,
          error: (err as Error).message.split('\n')[0],
        })
        console.error(err)
      }
    }
  } finally {
    await browser.close()
    await cleanUp()
  }
  return rows
}

if (isMain(import.meta)) {
  // Ctrl+C: stop the hosts and remove the temp folders too (Playwright closes its browser itself).
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => void cleanUp().finally(() => process.exit(130)))
  try {
    report('The app in a browser (stepwise serve + Chromium)', await benchUi())
  } catch (err) {
    console.error(`bench/ui.bench.ts: ${(err as Error).message}`)
    await cleanUp()
    process.exitCode = 1
  }
}
