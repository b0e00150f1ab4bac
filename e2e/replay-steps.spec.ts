import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import { saveScreen, watchProblems } from './screens'
import { startServe, type ServeHarness } from './serve-harness'

// Replay by steps people recognise, and the fork dialog, in Debian's Chromium against the real
// `stepwise serve`: at 1024×700 and 1440×900, in both themes.

let h: ServeHarness | undefined

// Eight screenshots and a model run each; the shared machine can be slow.
test.setTimeout(120_000)

test.afterEach(async () => {
  if (h) rmSync(`${h.repo}-fork-1`, { recursive: true, force: true })
  await h?.close()
  h = undefined
})

/** Read a, change it, add b, answer: 4 model replies, 3 tool calls, 2 changes. */
async function session(page: Page): Promise<ServeHarness> {
  const harness = await startServe({
    files: { 'a.txt': 'one\ntwo\n' },
    approve: 'auto-edit',
    model: {
      turns: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'one\nTWO\n' } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'bee\n' } }] },
        { text: 'Changed a, added b.' },
      ],
    },
  })
  await page.goto(harness.url)
  await page.getByTestId('chat-input').fill('Change a, then add b')
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Changed a, added b.' })).toBeVisible({
    timeout: 30_000,
  })
  await page.getByTestId('chat-input').blur()
  return harness
}

const position = (page: Page) => page.getByTestId('replay-position')

test('replay moves by messages, tool calls and changes, by buttons and keys, at both sizes and in both themes', async ({
  page,
}) => {
  const problems = watchProblems(page)
  await page.setViewportSize({ width: 1440, height: 900 })
  h = await session(page)
  await page.getByTestId('replay-start').click()
  // The user's message, 4 replies, 3 calls, 2 changes and the end: 11 steps, not the ~40 events stored.
  await expect(position(page)).toHaveText('step 11 of 11 · event')
  await page.keyboard.press('Home')
  await expect(position(page)).toHaveText('the start')
  await expect(page.getByTestId('timeline-step')).toHaveCount(0)
  await page.keyboard.press('ArrowRight')
  await expect(position(page)).toHaveText('step 1 of 11 · message')
  // C: the next change — a's checkpoint, after the read and the write.
  await page.keyboard.press('c')
  await expect(position(page)).toHaveText('step 6 of 11 · change')
  await expect(page.getByTestId('replay-diff-caption')).toHaveText(
    'a.txt · changed at this step, shown against the step before',
  )
  await page.getByTestId('replay-next-change').click()
  await expect(position(page)).toHaveText('step 9 of 11 · change')
  await expect(page.getByTestId('replay-next-change')).toBeDisabled()
  // Shift+T: back to the call that wrote b; T: none after it.
  await page.keyboard.press('Shift+T')
  await expect(position(page)).toHaveText('step 8 of 11 · tool call')
  await expect(page.getByTestId('replay-next-tool')).toBeDisabled()
  await page.keyboard.press('m')
  await expect(position(page)).toHaveText('step 10 of 11 · message')
  await page.getByTestId('replay-prev-message').click()
  await expect(position(page)).toHaveText('step 7 of 11 · message')
  // The state at a step is exactly the session as it was then: b's call not made yet.
  await expect(page.locator('[data-kind="tool"]').filter({ hasText: 'b.txt' })).toHaveCount(0)
  await page.keyboard.press('ArrowRight')
  await expect(page.locator('[data-kind="tool"]').filter({ hasText: 'b.txt' })).toHaveCount(1)

  for (const [width, height] of [
    [1440, 900],
    [1024, 700],
  ]) {
    await page.setViewportSize({ width, height })
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      await expect(page.getByTestId('replay-bar')).toBeVisible()
      // Nothing scrolls sideways: the bar wraps at 1024.
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true)
      await saveScreen(page, `replay-steps-${width}-${scheme}`)
    }
  }
  expect(problems).toEqual([])
})

test('the fork dialog forks the files into a worktree beside the project, titled and timed as the original', async ({
  page,
}) => {
  const problems = watchProblems(page)
  await page.setViewportSize({ width: 1440, height: 900 })
  h = await session(page)
  const repo = h.repo
  await page.getByTestId('replay-start').click()
  await page.keyboard.press('Home')
  await page.keyboard.press('c') // step 6: a changed, b not yet there
  await expect(position(page)).toHaveText('step 6 of 11 · change')
  await page.getByTestId('fork-here').click()
  const dialog = page.getByTestId('fork-dialog')
  await expect(dialog).toBeVisible()
  await expect(dialog.getByRole('heading')).toHaveText('Fork from step 6')
  // Esc closes the dialog, not the replay.
  await page.keyboard.press('Escape')
  await expect(dialog).toHaveCount(0)
  await expect(page.getByTestId('replay-bar')).toBeVisible()
  await page.getByTestId('fork-here').click()
  // The conversation alone keeps the files where they are: no worktree to choose.
  await dialog.getByLabel(/Conversation only/).check()
  await expect(dialog.getByLabel(/In a new git worktree/)).toBeDisabled()
  await dialog.getByLabel(/Files only/).check()
  await dialog.getByLabel(/In a new git worktree/).check()
  for (const [width, height] of [
    [1440, 900],
    [1024, 700],
  ]) {
    await page.setViewportSize({ width, height })
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      await saveScreen(page, `fork-dialog-${width}-${scheme}`)
    }
  }
  await page.emulateMedia({ colorScheme: 'light' })
  await page.setViewportSize({ width: 1440, height: 900 })
  await dialog.getByLabel(/Conversation and files/).check()
  await page.getByTestId('fork-confirm').click()
  await expect(dialog).toHaveCount(0)
  await expect(page.getByTestId('fork-origin')).toHaveText(/Forked from Change a, then add b at step 6/)
  // The project is untouched; the worktree holds the files as at step 6.
  const worktree = `${repo}-fork-1`
  expect(readFileSync(join(worktree, 'a.txt'), 'utf8')).toBe('one\nTWO\n')
  expect(existsSync(join(worktree, 'b.txt'))).toBe(false)
  expect(existsSync(join(repo, 'b.txt'))).toBe(true)
  // The fork's own replay starts where the parent's did: its steps kept their real times.
  await expect(page.getByTestId('replay-bar')).toHaveCount(0)
  await page.getByTestId('replay-start').click()
  await expect(position(page)).toHaveText('step 7 of 7 · change')
  // The list is the worktree's: the fork, titled after its parent.
  await expect(page.getByTestId('session-list-item')).toHaveText([/Fork of Change a, then add b/])
  await saveScreen(page, 'fork-opened')
  await page.keyboard.press('Escape')
  await page.getByTestId('fork-origin').getByRole('button').click()
  // The parent is not left in replay: it opens whole, with the fork on its timeline.
  await expect(page.getByTestId('replay-bar')).toHaveCount(0)
  await expect(page.locator('[data-kind="fork"]')).toHaveCount(1)
  await expect(page.getByTestId('session-list-item')).toHaveText([/Change a, then add b/])
  expect(problems).toEqual([])
})
