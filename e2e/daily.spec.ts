import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { saveScreen, watchProblems } from './screens'
import { startServe, type ServeHarness } from './serve-harness'

// Day-to-day use against the real `stepwise serve`: slash commands typed in the message box (run in
// the app, never sent to the model), markdown in timeline rows, and what survives a restart.

let h: ServeHarness | undefined

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

const chatRequests = (s: ServeHarness): number =>
  s.model.requests.filter((r) => r.path === '/api/chat').length

test('/undo in the message box undoes the last change without asking the model', async ({ page }) => {
  h = await startServe({
    files: { 'a.txt': 'before\n' },
    approve: 'auto-edit',
    model: {
      turns: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'after\n' } }] },
        { text: 'Changed **a.txt**:\n\n```ts\nconst done = true\n```' },
      ],
    },
  })
  const problems = watchProblems(page)
  await page.goto(h.url)
  const box = page.getByTestId('chat-input')
  await box.fill('Change a.txt')
  await box.press('Enter')
  const steps = page.getByTestId('timeline-step')
  const answer = steps.filter({ hasText: 'const done = true' })
  await expect(answer).toBeVisible()
  expect(readFileSync(join(h.repo, 'a.txt'), 'utf8')).toBe('after\n')

  // The row renders the markdown: bold and a code block, no raw ** or fences.
  await expect(answer.locator('strong')).toHaveText('a.txt')
  await expect(answer.locator('pre')).toContainText('const done = true')
  await expect(answer).not.toContainText('**')
  await expect(answer).not.toContainText('```')
  await saveScreen(page, '40-markdown-row')
  // The virtualizer measured the taller markdown rows: no row overlaps the next.
  const boxes = await steps.evaluateAll((rows) => rows.map((r) => r.getBoundingClientRect().toJSON()))
  for (let i = 1; i < boxes.length; i++)
    expect(boxes[i].y).toBeGreaterThanOrEqual(boxes[i - 1].y + boxes[i - 1].height - 1)
  const requests = chatRequests(h)

  // Typing "/" lists the commands; ↓ moves, the box points at the active one.
  await box.pressSequentially('/')
  const list = page.getByTestId('slash-list')
  await expect(list).toBeVisible()
  await expect(list.getByRole('option').first()).toHaveAttribute('aria-selected', 'true')
  await saveScreen(page, '41-slash-completion')
  await box.pressSequentially('un')
  await expect(list.getByRole('option')).toHaveCount(1)
  await expect(list.getByRole('option')).toContainText('/undo')
  await expect(box).toHaveAttribute('aria-activedescendant', 'slash-list-0')
  await box.press('Enter')

  await expect.poll(() => readFileSync(join(h!.repo, 'a.txt'), 'utf8')).toBe('before\n')
  await expect(box).toHaveValue('')
  await expect(steps.filter({ hasText: 'Undo' }).first()).toBeVisible()

  // Commands that take an argument, and /help.
  await box.fill('/policy read-only')
  await box.press('Enter')
  await expect(page.getByTestId('approval-policy')).toHaveValue('read-only')
  await box.fill('/hel')
  await box.press('Enter')
  await expect(page.getByTestId('help-dialog')).toContainText('/rewind N')
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('help-dialog')).toHaveCount(0)

  // An unknown command is said, not sent.
  await box.fill('/frobnicate now')
  await box.press('Enter')
  await expect(page.getByText('Unknown command /frobnicate')).toBeVisible()
  await expect(box).toHaveValue('/frobnicate now')
  expect(chatRequests(h)).toBe(requests)
  expect(problems).toEqual([])
})

test('after a restart the project reopens its last session and ↑ finds the earlier messages', async ({
  page,
}) => {
  h = await startServe({ files: { 'a.txt': 'x\n' }, model: { turns: [{ text: 'Hello there.' }] } })
  await page.goto(h.url)
  const box = page.getByTestId('chat-input')
  await box.fill('Say hello')
  await box.press('Enter')
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Hello there.' })).toBeVisible()

  await page.goto('about:blank')
  await h.stop()
  await h.restart()
  await page.goto(h.url)
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Hello there.' })).toBeVisible()
  await expect(page.getByTestId('session-list-item').first()).toHaveAttribute('aria-current', 'true')
  await box.click()
  await box.press('ArrowUp')
  await expect(box).toHaveValue('Say hello')
})

test('a second message overwrites a file the first one read', async ({ page }) => {
  h = await startServe({
    files: { 'a.txt': 'one\n' },
    approve: 'auto-edit',
    model: {
      turns: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
        { text: 'It says one.' },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'two\n' } }] },
        { text: 'Now it says two.' },
      ],
    },
  })
  const problems = watchProblems(page)
  await page.goto(h.url)
  const box = page.getByTestId('chat-input')
  const steps = page.getByTestId('timeline-step')
  await box.fill('What does a.txt say?')
  await box.press('Enter')
  await expect(steps.filter({ hasText: 'It says one.' })).toBeVisible()
  await expect(page.getByTestId('send-button')).toBeVisible()
  await box.fill('Make it say two')
  await box.press('Enter')
  await expect(steps.filter({ hasText: 'Now it says two.' })).toBeVisible()
  await expect(
    page.locator('[data-kind="tool"][data-status="ok"]').filter({ hasText: 'write_file' }),
  ).toHaveCount(1)
  expect(readFileSync(join(h.repo, 'a.txt'), 'utf8')).toBe('two\n')
  expect(problems).toEqual([])
})

test('/compact in the box summarises the chat, shows the figures, and the next message starts from the summary', async ({
  page,
}) => {
  const big = Array.from({ length: 400 }, (_, i) => `line ${i}: the quick brown fox OLDCONTENT`).join('\n')
  h = await startServe({
    files: { 'big.txt': `${big}\n` },
    model: {
      turns: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'big.txt' } }] },
        { text: 'It has 400 lines.' },
        { text: 'SUMMARY-TEXT: big.txt has 400 numbered lines.' },
        { text: 'Going on from the summary.' },
      ],
    },
  })
  const problems = watchProblems(page)
  await page.goto(h.url)
  const box = page.getByTestId('chat-input')
  const steps = page.getByTestId('timeline-step')
  await box.fill('How long is big.txt?')
  await box.press('Enter')
  await expect(steps.filter({ hasText: 'It has 400 lines.' })).toBeVisible()
  await expect(page.getByTestId('send-button')).toBeVisible()

  await box.fill('/compact the line count')
  await box.press('Enter')
  await expect(
    page.getByRole('status').filter({ hasText: /Compacted the context: [\d,]+ → [\d,]+ tokens/ }),
  ).toBeVisible()
  const row = steps.filter({ hasText: 'Context compacted on request' })
  await expect(row).toBeVisible()
  await row.click()
  await expect(page.getByText('SUMMARY-TEXT: big.txt has 400 numbered lines.').first()).toBeVisible()
  await saveScreen(page, '42-compact-on-request')
  const ask = JSON.stringify(h.model.requests.filter((r) => r.path === '/api/chat').at(-1)?.body)
  expect(ask).toContain('keep above all: the line count')

  await box.fill('Go on')
  await box.press('Enter')
  await expect(steps.filter({ hasText: 'Going on from the summary.' })).toBeVisible()
  const next = JSON.stringify(h.model.requests.filter((r) => r.path === '/api/chat').at(-1)?.body)
  expect(next).toContain('SUMMARY-TEXT')
  expect(next).not.toContain('OLDCONTENT')
  expect(problems).toEqual([])
})
