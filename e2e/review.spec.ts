import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import { saveScreen, watchProblems } from './screens'
import { startServe, type ServeHarness } from './serve-harness'

// One review of a step's changes, the timeline following its newest step, checkpoints inside their
// call's row and results shown for people — at 1024×700 and 1440×900, in both themes, against a
// real `stepwise serve`, a real git project and the fake model server. Screens: review-*.png.

let h: ServeHarness | undefined

test.setTimeout(120_000)

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

const A = Array.from({ length: 100 }, (_, i) => `line_${i + 1} = ${i + 1}`).join('\n') + '\n'
const B = 'def b():\n    return "b"\n'
const FILES = { 'a.py': A, 'b.py': B }

/** A read, one step of three file changes, a command, then enough steps to fill the timeline. */
function turns(): unknown[] {
  const filler = Array.from({ length: 18 }, (_, i) => ({
    text: `Checking part ${i + 1}.`,
    toolCalls: [
      { name: 'read_file', arguments: { path: i % 2 ? 'a.py' : 'b.py', start_line: 1, end_line: 2 } },
    ],
  }))
  return [
    { toolCalls: [{ name: 'read_file', arguments: { path: 'a.py' } }] },
    { toolCalls: [{ name: 'read_file', arguments: { path: 'b.py' } }] },
    {
      text: 'Three changes.',
      toolCalls: [
        {
          name: 'edit_file',
          arguments: { path: 'a.py', old_string: 'line_61 = 61', new_string: 'line_61 = 6100' },
        },
        { name: 'write_file', arguments: { path: 'new.py', content: 'print("new")\n' } },
        {
          name: 'edit_file',
          arguments: { path: 'b.py', old_string: 'return "b"', new_string: 'return "B"' },
        },
      ],
    },
    { toolCalls: [{ name: 'run_command', arguments: { command: 'ls' } }] },
    ...filler,
    { text: 'ALL-DONE: two of three changes applied.' },
  ]
}

const rows = (page: Page) => page.getByTestId('timeline-step')
const toolRow = (page: Page, text: string | RegExp) =>
  page.locator('[data-testid="timeline-step"][data-kind="tool"]').filter({ hasText: text })

/** The row is wholly inside the timeline's scroll box. */
async function expectRowInView(page: Page, text: string): Promise<void> {
  const box = (await page.locator('.tl-scroll').boundingBox())!
  const row = (await rows(page).filter({ hasText: text }).last().boundingBox())!
  expect(row.y, `"${text}" starts inside the timeline`).toBeGreaterThanOrEqual(box.y - 1)
  expect(row.y + row.height, `"${text}" ends inside the timeline`).toBeLessThanOrEqual(box.y + box.height + 1)
}

for (const [width, height] of [
  [1024, 700],
  [1440, 900],
] as const) {
  for (const theme of ['light', 'dark'] as const) {
    const tag = `${width}-${theme}`
    test(`one review of a step's changes, the tail followed, results for people (${width}×${height}, ${theme})`, async ({
      page,
    }) => {
      const problems = watchProblems(page)
      await page.setViewportSize({ width, height })
      await page.emulateMedia({ colorScheme: theme })
      h = await startServe({ files: FILES, model: { turns: turns() as never } })
      await page.goto(h.url)
      await page.getByTestId('chat-input').fill('Change a, add new.py, change b')
      await page.getByTestId('send-button').click()

      // ── One review: the file list, 1 of 3, each change on the timeline before the first is answered.
      const review = page.getByTestId('change-review')
      await expect(review.getByTestId('review-position')).toHaveText('File 1 of 3', { timeout: 30_000 })
      await expect(review.getByTestId('review-file')).toHaveText([/a\.py/, /new\.py/, /b\.py/])
      await expect(review.locator('[data-state="asking"]')).toHaveCount(1)
      await expect(review.getByTestId('review-accept-all')).toHaveText('Accept all 3')
      await expect(toolRow(page, 'new.py')).toHaveAttribute('data-status', 'waiting')
      await expect(toolRow(page, 'b.py').last()).toHaveAttribute('data-status', 'waiting')
      await expect(toolRow(page, 'new.py')).toContainText('proposed')
      // Per hunk for the change being asked: the card below keeps its hunk list.
      await expect(page.getByTestId('approval-panel')).toBeVisible()
      // A later file's change, ahead of its turn: its diff, and "reject" chosen for it.
      const third = review.getByTestId('review-file').nth(2)
      await third.locator('.review-file-path').click()
      await expect(third.locator('.sd-diff')).toContainText('return "B"')
      await third.getByTestId('review-file-reject').click()
      await expect(third.getByTestId('review-file-state')).toHaveText('will be rejected')
      // That choice stands: "accept all" now answers only the files not chosen for.
      await expect(review.getByTestId('review-accept-all')).toHaveText('Accept the 2 not chosen')
      await saveScreen(page, `review-1-step-of-three-${tag}`)

      // Y answers the change being asked from anywhere but a text field (here: the review's button).
      await page.keyboard.press('y')
      await expect(review.getByTestId('review-position')).toHaveText('File 2 of 3', { timeout: 20_000 })
      await expect(review.getByTestId('review-file').first()).toHaveAttribute('data-state', 'accepted')
      await saveScreen(page, `review-2-second-of-three-${tag}`)
      await expect(page.getByTestId('approval-panel')).toBeFocused()
      await page.keyboard.press('y')

      // ── The tail is followed after the approval and as steps arrive.
      const last = 'ALL-DONE'
      await expect(rows(page).filter({ hasText: last })).toBeVisible({ timeout: 30_000 })
      await expectRowInView(page, last)
      await expect(page.locator('.tl-jump')).toHaveCount(0)
      expect(readFileSync(join(h.repo, 'a.py'), 'utf8')).toContain('line_61 = 6100')
      expect(readFileSync(join(h.repo, 'new.py'), 'utf8')).toBe('print("new")\n')
      expect(readFileSync(join(h.repo, 'b.py'), 'utf8')).toBe(B)
      await saveScreen(page, `review-3-tail-followed-${tag}`)

      // Scrolled up, the list stays put and offers the way back.
      await page.locator('.tl-scroll').evaluate((el) => el.scrollTo(0, 0))
      await expect(page.locator('.tl-jump')).toBeVisible()
      await saveScreen(page, `review-4-jump-to-latest-${tag}`)
      await page.locator('.tl-jump').click()
      await expect(page.locator('.tl-jump')).toHaveCount(0)
      await expectRowInView(page, last)

      // ── Checkpoints sit in their call's row: no row of their own.
      await page.locator('.tl-scroll').evaluate((el) => el.scrollTo(0, 0))
      await expect(rows(page).first()).toBeVisible()
      await expect(page.locator('[data-testid="timeline-step"][data-kind="checkpoint"]')).toHaveCount(0)
      await expect(toolRow(page, 'new.py').getByTestId('timeline-checkpoint')).toHaveCount(1)
      await expect(toolRow(page, 'b.py').filter({ hasText: 'rejected' })).toBeVisible()

      // ── Results for people: a read as path and lines, a change as a diff, a command as a terminal.
      await toolRow(page, 'read_file').first().click()
      const details = page.getByTestId('step-details')
      const read = details.getByTestId('result-read')
      await expect(read).toContainText('a.py')
      await expect(read).toContainText('100 lines')
      await expect(read.locator('pre')).toContainText('line_12 = 12')
      expect(await read.textContent()).not.toContain('\\n')
      await saveScreen(page, `review-5-read-result-${tag}`)

      await toolRow(page, 'edit_file').first().click()
      await expect(details.getByTestId('result-diff').locator('.sd-diff-add')).toContainText('line_61 = 6100')
      await expect(details).toContainText('Checkpoint')
      await saveScreen(page, `review-6-diff-result-${tag}`)

      await toolRow(page, 'run_command').click()
      const terminal = details.getByTestId('result-terminal')
      await expect(terminal).toContainText('$ ls')
      await expect(terminal).toContainText('new.py')
      await expect(terminal.getByTestId('result-exit')).toHaveText('exit 0')
      await saveScreen(page, `review-7-terminal-result-${tag}`)
      expect(problems).toEqual([])
    })
  }
}

test('a change too large to show uses the frame: Accept (Y), and N asks for a reason', async ({ page }) => {
  const problems = watchProblems(page)
  await page.setViewportSize({ width: 1024, height: 700 })
  // Past the 400 KB a subject carries in full (src/shared/approval-diff.ts): summarised.
  const big = Array.from({ length: 9000 }, (_, i) => `row ${i} ${'x'.repeat(40)}`).join('\n') + '\n'
  h = await startServe({
    files: { 'README.md': '# demo\n' },
    model: {
      turns: [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'big.txt', content: big } }] },
        { text: 'SUMMARISED-DONE' },
      ],
    },
  })
  await page.goto(h.url)
  await page.getByTestId('chat-input').fill('Write a big file')
  await page.getByTestId('send-button').click()
  const card = page.getByTestId('approval-panel')
  await expect(card.getByTestId('approval-summarised')).toBeVisible({ timeout: 30_000 })
  await expect(card).toHaveAttribute('data-kind', 'file-summarised')
  // One set of buttons, the frame's.
  await expect(card.getByTestId('approve-button')).toHaveText('Accept (Y)')
  await expect(card.getByRole('button', { name: /Accept/ })).toHaveCount(1)
  await page.keyboard.press('n')
  await expect(page.getByTestId('reject-reason')).toBeFocused()
  await saveScreen(page, 'review-8-summarised-reject-1024-light')
  await page.keyboard.press('Escape')
  await page.keyboard.press('y')
  // Applied whole (what the model does next with 400 KB in its context is another matter).
  await expect(toolRow(page, 'big.txt')).toHaveAttribute('data-status', 'ok', { timeout: 30_000 })
  expect(readFileSync(join(h.repo, 'big.txt'), 'utf8')).toBe(big)
  expect(problems).toEqual([])
})
