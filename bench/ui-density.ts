import type { Browser, Page } from 'playwright-core'
import { startFakeModelServer } from '../test/fake-model-server'
import { newContext, project, removeDir, startServe, tempDir, type Serve } from './ui-host'
import { ROW } from './ui-page'
import { COUNT } from './ui-stats'
import { log, median, type BenchRow } from './util'

/*
 * Reading at a glance (issue 24): how many timeline steps are wholly on one screen at 1440×900, on
 * the session e2e/timeline-reading.spec.ts reads (twelve model steps of a note and a call, then the
 * answer). Before the dense rows the same screen held 8; the target is at least twice that. Also the
 * page's own first paint (first-contentful-paint) on a fresh load of that session's app, median of
 * three, as a figure to compare runs by.
 */

const FILES = Object.fromEntries(
  Array.from({ length: 6 }, (_, i) => [`m${i}.py`, `def f${i}():\n    return ${i}\n`]),
)
const BEFORE_DENSE_ROWS = 8
const PAINT_RUNS = 3

/** Rows wholly inside the timeline's scroll box, the list scrolled to its top (as the spec counts). */
const ROWS_ON_SCREEN = `(async () => {
  const scroll = document.querySelector('.tl-scroll')
  scroll.scrollTo(0, 0)
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
  const box = scroll.getBoundingClientRect()
  return [...document.querySelectorAll('${ROW}')]
    .map((el) => el.getBoundingClientRect())
    .filter((r) => r.top >= box.top - 1 && r.bottom <= box.bottom + 1).length
})()`

const FIRST_PAINT = `new Promise((resolve) => {
  const find = () => performance.getEntriesByName('first-contentful-paint')[0]
  const found = find()
  if (found) return resolve(found.startTime)
  new PerformanceObserver(() => find() && resolve(find().startTime)).observe({ type: 'paint', buffered: true })
})`

async function readingSession(page: Page, url: string): Promise<void> {
  await page.goto(url)
  await page.getByTestId('chat-input').fill('Read every module')
  await page.getByTestId('send-button').click()
  await page.getByText('THE-END').waitFor({ timeout: 60_000 })
}

export async function benchDensity(browser: Browser): Promise<BenchRow[]> {
  const repo = project(FILES)
  const dataDir = tempDir('density-data')
  const turns = Array.from({ length: 12 }, (_, i) => ({
    text: `Looking at part ${i + 1}.`,
    toolCalls: [
      i % 3 === 2
        ? { name: 'run_command', arguments: { command: 'ls' } }
        : { name: 'read_file', arguments: { path: `m${i % 6}.py` } },
    ],
  }))
  const model = await startFakeModelServer({ models: ['coder:1b'], turns: [...turns, { text: 'THE-END' }] })
  const context = await newContext(browser)
  let serve: Serve | undefined
  try {
    serve = await startServe({ repo, dataDir, modelUrl: model.url, approve: 'ask' })
    const page = await context.newPage()
    await page.setViewportSize({ width: 1440, height: 900 })
    await readingSession(page, serve.url)
    const rows = await page.evaluate<number>(ROWS_ON_SCREEN)
    const paints: number[] = []
    for (let run = 0; run < PAINT_RUNS; run++) {
      await page.goto(serve.url)
      paints.push(await page.evaluate<number>(FIRST_PAINT))
    }
    log(
      `density: ${rows} steps on a 1440×900 screen; first paint ${paints.map((ms) => ms.toFixed(0)).join(', ')} ms`,
    )
    return [
      {
        name: 'ui: timeline steps wholly on one screen (1440×900)',
        unit: COUNT,
        ours: rows,
        refName: 'before the dense rows',
        reference: BEFORE_DENSE_ROWS,
        target: { minAbs: 2 * BEFORE_DENSE_ROWS },
        note: 'twelve model steps of a note and a read or ls, then the answer; rows wholly inside the list, scrolled to its top',
      },
      {
        name: 'ui: first paint of the app (first-contentful-paint)',
        unit: 's',
        ours: median(paints) / 1000,
        note: `median of ${PAINT_RUNS} reloads of the page at 1440×900, the host already running`,
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
