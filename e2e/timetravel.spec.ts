import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { saveScreen, watchProblems } from './screens'
import { startServe, type ServeHarness } from './serve-harness'

// Time travel in the app (issue 4), in Debian's Chromium against the real `stepwise serve`:
// undo from the keyboard, and a fork from a replayed step that shows as a child in the session list.

const ORIGINAL = 'one\ntwo\nthree\n'
const CHANGED = 'one\nTWO\nthree\n'

let h: ServeHarness | undefined

// A model run, two undos, a replay and a fork: the shared machine can be slow.
test.setTimeout(120_000)

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

test('Ctrl+Z undoes the last change, then the one before; a fork from a step is a child in the list', async ({
  page,
}) => {
  h = await startServe({
    files: { 'a.txt': ORIGINAL },
    approve: 'auto-edit',
    model: {
      turns: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: CHANGED } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'new file\n' } }] },
        { text: 'Changed a, added b.' },
      ],
    },
  })
  const problems = watchProblems(page)
  const file = (name: string) => join(h!.repo, name)
  await page.goto(h.url)
  await page.getByTestId('chat-input').fill('Change a, then add b')
  await page.getByTestId('send-button').click()
  // The model run can take a while on a loaded machine.
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Changed a, added b.' })).toBeVisible({
    timeout: 30_000,
  })
  await expect(page.locator('[data-kind="checkpoint"]')).toHaveCount(2)
  expect(readFileSync(file('a.txt'), 'utf8')).toBe(CHANGED)
  expect(existsSync(file('b.txt'))).toBe(true)

  // Undo works from anywhere but a text field (there, Ctrl+Z edits the text).
  await page.getByTestId('chat-input').blur()
  await page.keyboard.press('Control+z')
  await expect(
    page.getByRole('status').filter({ hasText: 'Undid the last change: restored 1 file.' }).first(),
  ).toBeVisible()
  expect(existsSync(file('b.txt'))).toBe(false)
  expect(readFileSync(file('a.txt'), 'utf8')).toBe(CHANGED)
  await expect(page.locator('[data-kind="restore"]')).toHaveCount(1)
  await page.keyboard.press('Control+z')
  await expect(page.locator('[data-kind="restore"]')).toHaveCount(2)
  expect(readFileSync(file('a.txt'), 'utf8')).toBe(ORIGINAL)
  await saveScreen(page, '19-undo')
  // A third undo would find nothing; the toast's Take back undoes the last undo (a rewind, itself undoable).
  await page.getByTestId('toast-action').last().click()
  await expect(page.locator('[data-kind="restore"]')).toHaveCount(3)
  await expect.poll(() => readFileSync(file('a.txt'), 'utf8')).toBe(CHANGED)
  expect(existsSync(file('b.txt'))).toBe(false)

  // Replay back to the checkpoint of a's change and fork from there.
  await page.getByTestId('replay-start').click()
  await expect(page.getByTestId('replay-scrubber')).toBeVisible()
  const caption = page.getByTestId('replay-diff-caption')
  const writesB = page.locator('[data-kind="tool"]').filter({ hasText: 'b.txt' })
  while ((await writesB.count()) > 0) await page.keyboard.press('ArrowLeft')
  await expect(caption).toHaveText('a.txt · not changed at this step, as it was then')
  await page.keyboard.press('ArrowLeft')
  await expect(caption).toHaveText('a.txt · changed at this step, shown against the step before')
  // The fork asks in the app's own dialog: both, in place, on the same model by default.
  await page.getByTestId('fork-here').click()
  await expect(page.getByTestId('fork-dialog')).toBeVisible()
  await page.getByTestId('fork-confirm').click()
  const items = page.getByTestId('session-list-item')
  await expect(items).toHaveCount(2)
  await expect(items.nth(1).locator('.fork-mark')).toBeVisible()
  await expect(items.nth(1)).toHaveAttribute('aria-current', 'true')
  // The fork put the files back as they were at that step; b.txt came later.
  expect(readFileSync(file('a.txt'), 'utf8')).toBe(CHANGED)
  expect(existsSync(file('b.txt'))).toBe(false)
  // The fork waits for the next message: no turn runs in it.
  await expect(page.getByTestId('chat-input')).toBeEnabled()
  await expect(page.getByTestId('send-button')).toBeVisible()
  await expect(page.getByTestId('fork-origin')).toHaveText(/Forked from Change a, then add b at step \d+/)
  await expect(items.nth(1)).toContainText('Fork of Change a, then add b')
  await saveScreen(page, '20-fork-tree')
  // Both show the link: the parent's timeline has the fork as a step.
  await page.getByTestId('fork-origin').getByRole('button').click()
  await expect(items.nth(0)).toHaveAttribute('aria-current', 'true')
  // The fork ended the parent's replay: it opens whole, with the fork after the undos.
  await expect(page.getByTestId('replay-bar')).toHaveCount(0)
  await expect(page.locator('[data-kind="fork"]')).toHaveCount(1)
  expect(problems).toEqual([])
})
