import type { Browser, Page } from 'playwright-core'
import { startFakeModelServer } from '../test/fake-model-server'
import { newContext, project, removeDir, startServe, tempDir, type Serve } from './ui-host'
import { log, type BenchRow } from './util'

/*
 * The approval card shows the change first (issue 24): a 100-line file whose only change is at
 * line 61 is proposed; at 1440×900 and 1024×700, how many wheel scrolls over the diff does it take
 * before the changed line is on screen? Target 0. A scroll is one wheel notch (100 px, as a mouse
 * sends), up to 30.
 */

const BEFORE = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'
const AFTER = BEFORE.replace('line 61\n', 'CHANGED sixty-one\n')
const MAX_SCROLLS = 30
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 700 },
]

/** Whether the changed line is painted inside the diff's visible area (run in the page, as a string). */
const CHANGE_IN_VIEW = `(() => {
  const editor = document.querySelector('[data-testid="approval-diff"] .editor.modified')
  if (!editor) return false
  const area = editor.getBoundingClientRect()
  return [...editor.querySelectorAll('.view-line')].some((line) => {
    if (!line.textContent.includes('sixty-one')) return false
    const r = line.getBoundingClientRect()
    return r.top >= area.top && r.bottom <= area.bottom && r.height > 0
  })
})()`

const TWO_FRAMES = 'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))'

async function scrollsToSee(page: Page): Promise<number> {
  const editor = page.locator('[data-testid="approval-diff"] .editor.modified')
  await editor.waitFor({ timeout: 20_000 })
  const box = (await editor.boundingBox())!
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
  for (let scrolls = 0; scrolls <= MAX_SCROLLS; scrolls++) {
    // Monaco paints after a frame; give it two.
    await page.evaluate(TWO_FRAMES)
    if (await page.evaluate(CHANGE_IN_VIEW)) return scrolls
    await page.mouse.wheel(0, 100)
  }
  return Infinity
}

export async function benchApprovalScrolls(browser: Browser): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  for (const size of SIZES) {
    const repo = project({ 'a.txt': BEFORE })
    const dataDir = tempDir('approval-data')
    const model = await startFakeModelServer({
      models: ['coder:1b'],
      turns: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: AFTER } }] },
        { text: 'ok' },
      ],
    })
    const context = await newContext(browser)
    let serve: Serve | undefined
    try {
      serve = await startServe({ repo, dataDir, modelUrl: model.url, approve: 'ask' })
      const page = await context.newPage()
      await page.setViewportSize(size)
      await page.goto(serve.url)
      await page.getByTestId('chat-input').fill('Change line 61')
      await page.getByTestId('send-button').click()
      await page.getByTestId('approval-panel').waitFor({ timeout: 20_000 })
      const scrolls = await scrollsToSee(page)
      log(`approval at ${size.width}×${size.height}: the change at line 61 seen after ${scrolls} scrolls`)
      rows.push({
        name: `ui: scrolls to see a change at line 61 (${size.width}×${size.height})`,
        unit: 'count',
        ours: scrolls,
        target: { maxAbs: 0 },
        note:
          'a 100-line file changed at line 61, proposed by write_file; wheel notches of 100 px over the diff ' +
          'until the changed line is painted inside it (with unchanged regions not folded, measured once: 11 at 1440×900, 16 at 1024×700)',
      })
    } finally {
      await serve?.stop()
      await context.close()
      await model.close()
      removeDir(dataDir)
      removeDir(repo)
    }
  }
  return rows
}
