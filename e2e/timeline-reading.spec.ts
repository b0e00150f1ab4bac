import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import { SCREENS_DIR, saveScreen, watchProblems } from './screens'
import { startServe, type ServeHarness } from './serve-harness'

// Reading what happened: dense rows that say how each call ended, and the model's answer whole.
// A real `stepwise serve`, a real git project and the fake model server; screens in
// test-results/screens (90-…), and the steps visible per screen in 90-density.json.

let h: ServeHarness | undefined

test.setTimeout(90_000)

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

const FILES = Object.fromEntries(
  Array.from({ length: 6 }, (_, i) => [`m${i}.py`, `def f${i}():\n    return ${i}\n`]),
)
const ANSWER_TAIL = 'THE-LAST-LINE-OF-THE-ANSWER'
const ANSWER = [
  'All six modules read; nothing to change.',
  '',
  '```py',
  ...Array.from({ length: 30 }, (_, i) => `value_${i} = f${i % 6}()`),
  '```',
  '',
  ANSWER_TAIL,
].join('\n')

/** A turn of twelve model steps, each a short note and a call that needs no approval. */
async function readingSession(page: Page): Promise<void> {
  const turns = Array.from({ length: 12 }, (_, i) => ({
    text: `Looking at part ${i + 1}.`,
    toolCalls: [
      i % 3 === 2
        ? { name: 'run_command', arguments: { command: 'ls' } }
        : { name: 'read_file', arguments: { path: `m${i % 6}.py` } },
    ],
  }))
  h = await startServe({ files: FILES, model: { turns: [...turns, { text: ANSWER }] } })
  await page.goto(h.url)
  await page.getByTestId('chat-input').fill('Read every module')
  await page.getByTestId('send-button').click()
  await expect(page.getByText(ANSWER_TAIL)).toBeVisible({ timeout: 30_000 })
}

/** Rows wholly inside the timeline's scroll box, with the list scrolled to its top. */
async function rowsPerScreen(page: Page): Promise<number> {
  await page.locator('.tl-scroll').evaluate((el) => el.scrollTo(0, 0))
  await page.waitForTimeout(200)
  const box = (await page.locator('.tl-scroll').boundingBox())!
  const rows = await page
    .getByTestId('timeline-step')
    .evaluateAll((els) =>
      els.map((el) => el.getBoundingClientRect().toJSON() as { top: number; bottom: number }),
    )
  return rows.filter((r) => r.top >= box.y - 1 && r.bottom <= box.y + box.height + 1).length
}

for (const [width, height] of [
  [1440, 900],
  [1024, 700],
] as const) {
  for (const theme of ['light', 'dark'] as const) {
    test(`${width}×${height} ${theme}: rows say how calls ended, the answer is whole`, async ({ page }) => {
      const problems = watchProblems(page)
      await page.setViewportSize({ width, height })
      await page.emulateMedia({ colorScheme: theme })
      await readingSession(page)
      // The timeline follows the newest step; the first rows are read from the top of the list.
      await page.locator('.tl-scroll').evaluate((el) => el.scrollTo(0, 0))
      // A read says which lines; a command its exit code and its run time.
      const read = page.locator('[data-testid="timeline-step"][data-kind="tool"]').first()
      await expect(read).toContainText('read_file')
      await expect(read).toContainText('2 lines')
      await expect(read).toContainText(/ran \d+ ms/)
      const ls = page.locator('[data-testid="timeline-step"][data-kind="tool"]', { hasText: 'ls' }).first()
      await expect(ls).toContainText('exit 0')
      await expect(page.getByText('Changes files')).toHaveCount(0)
      // The answer is never clipped: its last line is on screen, not cut off by the row.
      await page.locator('.tl-scroll').evaluate((el) => el.scrollTo(0, el.scrollHeight))
      const answer = page.locator('.tl-answer').last()
      const tail = answer.getByText(ANSWER_TAIL)
      await tail.scrollIntoViewIfNeeded()
      const [a, t] = [await answer.boundingBox(), await tail.boundingBox()]
      expect(t!.y + t!.height).toBeLessThanOrEqual(a!.y + a!.height + 1)
      await saveScreen(page, `90-reading-answer-${width}-${theme}`)
      const rows = await rowsPerScreen(page)
      await saveScreen(page, `90-reading-top-${width}-${theme}`)
      if (width === 1440 && theme === 'light')
        writeFileSync(join(SCREENS_DIR, '90-density.json'), JSON.stringify({ width, height, rows }) + '\n')
      // Before the dense rows this screen showed 8 steps at 1440×900; at least twice that now.
      expect(rows).toBeGreaterThanOrEqual(width === 1440 ? 16 : 9)
      expect(problems).toEqual([])
    })
  }
}

test('the browser host says truthfully how it keeps an API key: a 0600 file at its path', async ({
  page,
}) => {
  h = await startServe({ files: { 'a.txt': 'hello\n' } })
  await page.goto(h.url)
  await page.getByTestId('model-picker').click()
  await page.getByRole('tab', { name: 'OpenAI', exact: true }).click()
  const note = page.locator('form[aria-label="API key"] .ui-note')
  await expect(note).toContainText('credentials.json')
  await expect(note).toContainText('0600')
  await expect(note).not.toContainText(/encrypt/i)
  await saveScreen(page, '90-key-storage-note')
})
