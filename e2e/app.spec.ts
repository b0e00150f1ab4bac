import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { UNNAMED_CONTROLS } from './a11y'
import { saveScreen, watchProblems } from './screens'
import { startServe, type ServeHarness } from './serve-harness'

// The app in Debian's Chromium against the real `stepwise serve`, a real git project and the fake
// model server: the flows of issue 3, each screen saved to test-results/screens.

const LINES = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`)
const ORIGINAL = `${LINES.join('\n')}\n`
const PROPOSED = `${LINES.map((l, i) => (i === 1 ? 'line TWO' : i === 27 ? 'line TWENTY-EIGHT' : l)).join('\n')}\n`

let h: ServeHarness | undefined

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

test('chat, live steps, one hunk accepted and one rejected, the file on disk, then reopen', async ({
  page,
}) => {
  h = await startServe({
    files: { 'a.txt': ORIGINAL, 'README.md': '# demo\n' },
    model: {
      turns: [
        { text: 'Reading the file first.', toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: PROPOSED } }] },
        { text: 'Changed **line 2**; you kept line 28 as it was.\n\n```ts\nconst done = true\n```' },
      ],
    },
  })
  const problems = watchProblems(page)
  await page.goto(h.url)
  await expect(page.getByTestId('chat-input')).toBeEnabled()
  await saveScreen(page, '01-project-open')

  await page.getByTestId('chat-input').fill('Rename lines 2 and 28')
  await page.getByTestId('send-button').click()
  const steps = page.getByTestId('timeline-step')
  await expect(steps.filter({ hasText: 'read_file' })).toHaveAttribute('data-status', 'ok')
  await expect(page.getByTestId('approval-panel')).toBeVisible()
  await expect(page.locator('[data-kind="tool"][data-status="waiting"]')).toHaveCount(1)
  await expect(page.getByTestId('hunk')).toHaveCount(2)
  await saveScreen(page, '02-approval-diff')

  await page.getByTestId('hunk-reject').nth(1).click()
  await expect(page.getByTestId('approve-button')).toContainText('1 of 2')
  await saveScreen(page, '03-approval-one-hunk-rejected')
  await page.getByTestId('approve-button').click()

  await expect(steps.filter({ hasText: 'you kept line 28' })).toBeVisible()
  expect(readFileSync(join(h.repo, 'a.txt'), 'utf8')).toBe(ORIGINAL.replace('line 2\n', 'line TWO\n'))
  await expect(page.getByTestId('send-button')).toBeVisible()
  // The model was told exactly what was applied.
  const chats = h.model.requests.filter((r) => r.path === '/api/chat')
  expect(JSON.stringify(chats[2].body)).toContain('user_partially_accepted')
  await steps.filter({ hasText: 'you kept line 28' }).click()
  await expect(page.getByTestId('step-details')).toContainText('const done = true')
  await saveScreen(page, '04-finished-with-details')

  // Reopen the app: the session is listed and opens with its whole history.
  // Close the app (the page first, so it does not try to reconnect), then start it again.
  await page.goto('about:blank')
  await h.stop()
  await h.restart()
  await page.goto(h.url)
  const item = page.getByTestId('session-list-item').filter({ hasText: 'Rename lines 2 and 28' })
  await expect(item).toBeVisible()
  await item.click()
  await expect(steps.filter({ hasText: 'you kept line 28' })).toBeVisible()
  await expect(page.locator('[data-kind="tool"][data-status="ok"]')).toHaveCount(2)
  await saveScreen(page, '05-reopened-session')
  expect(problems).toEqual([])
})

test('Stop interrupts a running turn; the session records it and takes the next message', async ({
  page,
}) => {
  h = await startServe({
    files: { 'a.txt': ORIGINAL },
    model: { turns: [{ hang: true }, { text: 'Back again.' }] },
  })
  const problems = watchProblems(page)
  await page.goto(h.url)
  await page.getByTestId('chat-input').fill('Take your time')
  await page.getByTestId('chat-input').press('Enter')
  await expect(page.getByTestId('stop-button')).toBeVisible()
  // Stop once the request is with the model, so the next message gets the next scripted turn.
  await expect.poll(() => h!.model.requests.filter((r) => r.path === '/api/chat').length).toBe(1)
  await saveScreen(page, '06-thinking')
  await page.getByTestId('stop-button').click()
  await expect(page.getByTestId('send-button')).toBeVisible()
  await page.getByTestId('chat-input').fill('Again')
  await page.getByTestId('chat-input').press('Enter')
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Back again.' })).toBeVisible()
  // History: ↑ brings back the last message sent.
  await page.getByTestId('chat-input').press('ArrowUp')
  await expect(page.getByTestId('chat-input')).toHaveValue('Again')
  expect(problems).toEqual([])
})

test('@ mentions complete project files', async ({ page }) => {
  h = await startServe({ files: { 'a.txt': ORIGINAL, 'main.go': 'package main\n', 'notes.md': '# n\n' } })
  await page.goto(h.url)
  const input = page.getByTestId('chat-input')
  await input.fill('look at @mai')
  await expect(page.getByRole('option', { name: 'main.go' })).toBeVisible()
  await saveScreen(page, '07-mention')
  await input.press('Enter')
  await expect(input).toHaveValue('look at @main.go ')
})

test('replay: scrub back to a step, see its diff, and rewind the files there', async ({ page }) => {
  h = await startServe({
    files: { 'a.txt': ORIGINAL },
    approve: 'auto-edit',
    model: {
      turns: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: PROPOSED } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'new file\n' } }] },
        { text: 'Both done.' },
      ],
    },
  })
  const problems = watchProblems(page)
  await page.goto(h.url)
  await page.getByTestId('chat-input').fill('Change a, then add b')
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Both done.' })).toBeVisible()
  await page.getByTestId('replay-start').click()
  const scrubber = page.getByTestId('replay-scrubber')
  await expect(scrubber).toBeVisible()
  // Step back until b.txt's write is no longer shown: the files are those after a's change.
  await expect(page.locator('[data-kind="checkpoint"]')).toHaveCount(2)
  const writesB = page.locator('[data-kind="tool"]').filter({ hasText: 'b.txt' })
  while ((await writesB.count()) > 0) await page.keyboard.press('ArrowLeft')
  await expect(page.locator('[data-kind="checkpoint"]')).toHaveCount(1)
  await expect(page.getByTestId('replay-files')).toBeVisible()
  await expect(page.getByTestId('replay-diff')).toBeVisible()
  // The model's turn after the change changed nothing; the checkpoint before it holds a's change.
  const caption = page.getByTestId('replay-diff-caption')
  await expect(caption).toHaveText('a.txt · not changed at this step, as it was then')
  await page.keyboard.press('ArrowLeft')
  await expect(caption).toHaveText('a.txt · changed at this step, shown against the step before')
  await expect(page.getByTestId('replay-diff').locator('.line-insert, .char-insert').first()).toBeVisible()
  await saveScreen(page, '08-replay')
  // A file changed by hand since: the rewind asks in the app's own dialog, naming it, before it
  // overwrites it (the present is checkpointed first, so an undo brings it back).
  writeFileSync(join(h.repo, 'a.txt'), 'changed by hand\n')
  await page.getByTestId('rewind-here').click()
  const ask = page.getByTestId('confirm-dialog')
  await expect(ask).toContainText('Rewind and overwrite?')
  await expect(ask).toContainText('a.txt')
  await saveScreen(page, '08-rewind-conflict')
  await ask.getByTestId('confirm-ok').click()
  await expect(page.getByRole('status').filter({ hasText: /Restored/ })).toBeVisible()
  expect(readFileSync(join(h.repo, 'a.txt'), 'utf8')).toBe(PROPOSED)
  expect(() => readFileSync(join(h!.repo, 'b.txt'))).toThrow()
  expect(problems).toEqual([])
})

test('a turn that failed offers Retry, which asks the model again from where it stopped', async ({
  page,
}) => {
  h = await startServe({
    files: { 'a.txt': ORIGINAL },
    model: {
      turns: [
        { status: 400, body: JSON.stringify({ error: 'the model server refused the request' }) },
        { text: 'Recovered.' },
      ],
    },
  })
  await page.goto(h.url)
  await page.getByTestId('chat-input').fill('Try this')
  await page.getByTestId('chat-input').press('Enter')
  await expect(page.getByTestId('error-actions')).toBeVisible()
  await expect(page.locator('[data-kind="error"]')).toHaveCount(1)
  await saveScreen(page, '16-error-retry')
  await page.getByTestId('error-retry').click()
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Recovered.' })).toBeVisible()
  await expect(page.getByTestId('error-actions')).toBeHidden()
  // The retry continued the same conversation: no second copy of the message.
  await expect(page.locator('[data-kind="user"]')).toHaveCount(1)
})

test('every control has an accessible name and Tab reaches the message box', async ({ page }) => {
  h = await startServe({ files: { 'a.txt': ORIGINAL } })
  await page.goto(h.url)
  await expect(page.getByTestId('chat-input')).toBeEnabled()
  const unnamed = await page.evaluate<string[]>(UNNAMED_CONTROLS)
  expect(unnamed).toEqual([])
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press('Tab')
    if ((await page.evaluate<string | undefined>('document.activeElement?.dataset?.testid')) === 'chat-input')
      return
  }
  throw new Error('Tab never reached the message box')
})

test('Review changes from the palette: a read-only session whose findings land on the timeline', async ({
  page,
}) => {
  h = await startServe({
    files: { 'calc.ts': 'export const add = (a: number, b: number) => a + b\n' },
    model: {
      turns: [
        {
          toolCalls: [
            {
              name: 'report_finding',
              arguments: {
                file: 'calc.ts',
                line: 2,
                severity: 'high',
                category: 'security',
                message: 'eval on user input runs arbitrary code.',
              },
            },
          ],
        },
        { text: 'One high finding: eval.' },
      ],
    },
  })
  writeFileSync(
    join(h.repo, 'calc.ts'),
    'export const add = (a: number, b: number) => a + b\nexport const run = (c: string) => eval(c)\n',
  )
  const problems = watchProblems(page)
  await page.goto(h.url)
  await expect(page.getByTestId('chat-input')).toBeEnabled()
  await page.keyboard.press('Control+k')
  await page.keyboard.type('review')
  await page.keyboard.press('Enter')
  const finding = page.locator('[data-kind="finding"]')
  await expect(finding).toContainText('eval on user input')
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'One high finding' })).toBeVisible()
  await saveScreen(page, '17-review-finding')
  expect(readFileSync(join(h.repo, 'calc.ts'), 'utf8')).toContain('eval(c)')
  expect(problems).toEqual([])
})

test('a file changed on disk while its change waited: Apply anyway, Skip or Regenerate', async ({ page }) => {
  h = await startServe({
    files: { 'a.txt': ORIGINAL },
    model: {
      turns: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: PROPOSED } }] },
        { text: 'Understood, I left your version.' },
      ],
    },
  })
  const problems = watchProblems(page)
  await page.goto(h.url)
  await page.getByTestId('chat-input').fill('Rename lines 2 and 28')
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('approval-panel')).toBeVisible()
  // Meanwhile the user edits the file in their own editor.
  writeFileSync(join(h.repo, 'a.txt'), 'my own edit\n')
  await page.getByTestId('approve-button').click()
  await expect(page.getByTestId('conflict-skip')).toBeVisible()
  await saveScreen(page, '18-edit-conflict')
  await page.getByTestId('conflict-skip').click()
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'I left your version' })).toBeVisible()
  expect(readFileSync(join(h.repo, 'a.txt'), 'utf8')).toBe('my own edit\n')
  expect(problems).toEqual([])
})
