import { expect, test } from '@playwright/test'
import { saveScreen, watchProblems } from './screens'
import { startServe, type ServeHarness } from './serve-harness'

// The context meter from the first paint, against the real `stepwise serve`: what the prompt,
// tools and repo map take before any message, in the model's real window; an unknown window said.

let h: ServeHarness | undefined

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

test("before the first message the meter shows the baseline in the model's window", async ({ page }) => {
  h = await startServe({
    files: { 'app.ts': 'export const answer = 42\n', 'AGENTS.md': 'Run the tests before you finish.\n' },
    model: { show: { contextLength: 16_384 }, turns: [{ text: 'Hi.' }] },
  })
  const problems = watchProblems(page)
  await page.goto(h.url)
  const meter = page.getByTestId('context-meter')
  await expect(meter).toHaveAttribute('data-window', '16384')
  await expect(meter).toHaveAttribute(
    'aria-label',
    /before the first message .* of 16\.4k tokens: system prompt/,
  )
  await expect(meter).toHaveAttribute('aria-label', /project rules/)
  await expect(meter).toContainText(/^~\d+%$/)
  await expect(meter).not.toContainText('~0%')
  await saveScreen(page, '42-meter-before-first-turn')
  expect(h.model.requests.filter((r) => r.path === '/api/chat')).toHaveLength(0)
  expect(problems).toEqual([])
})

test('an unknown window is said, with how to set it, never as 0 %', async ({ page }) => {
  h = await startServe({
    files: { 'a.txt': 'x\n' },
    compatible: { model: 'my-alias' },
    model: { turns: [{ text: 'Hi.' }] },
  })
  await page.goto(h.url)
  const meter = page.getByTestId('context-meter')
  await expect(meter).toHaveAttribute('data-window', 'unknown')
  await expect(meter).toHaveAttribute('aria-label', /Context window unknown.*model picker/)
  await expect(meter).toContainText(/ \/ \?$/)
  await expect(page.getByTestId('set-window')).toHaveText('window unknown: set it')
  await saveScreen(page, '46-meter-window-unknown')
  await page.getByTestId('chat-input').fill('Hello')
  await page.getByTestId('chat-input').press('Enter')
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Hi.' })).toBeVisible()
  await expect(meter).toHaveAttribute('data-window', 'unknown')
  await expect(meter).not.toContainText('%')
  // Setting the window in the model picker turns it into a percentage.
  await page.getByTestId('set-window').click()
  await page.getByTestId('model-options').getByLabel('Context window (tokens)').fill('65536')
  await page.getByTestId('model-options-save').click()
  await expect(meter).toHaveAttribute('data-window', '65536')
  await expect(page.getByTestId('set-window')).toHaveCount(0)
})
