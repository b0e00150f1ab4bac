import { expect, test } from '@playwright/test'
import { watchProblems } from './screens'
import { startServe, type ServeHarness } from './serve-harness'

/*
 * A chat goes on after the user stops the model while it is writing: the partial answer
 * stays on the timeline, marked interrupted, and the next message reaches the model with
 * that partial answer before it (the transcript the fake server checks is consistent).
 */

let h: ServeHarness | undefined

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

test('stop mid-stream, then send: the partial answer stays and the model answers the next message', async ({
  page,
}) => {
  h = await startServe({
    files: { 'a.txt': 'alpha\n' },
    model: { turns: [{ hang: true, partial: true }, { text: 'Picking up from there.' }] },
  })
  const problems = watchProblems(page)
  await page.goto(h.url)
  await page.getByTestId('chat-input').fill('Explain a.txt')
  await page.getByTestId('chat-input').press('Enter')
  const model = page.locator('[data-kind="model"]').first()
  // Text has streamed: the fake server sent the head of "Hello there" and holds the stream.
  await expect(model).toContainText('Hel')
  await page.getByTestId('stop-button').click()
  await expect(page.getByTestId('send-button')).toBeVisible()
  await expect(model).toHaveAttribute('data-status', 'interrupted')
  await expect(model).toContainText('Hel')

  await page.getByTestId('chat-input').fill('Go on')
  await page.getByTestId('chat-input').press('Enter')
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Picking up from there.' })).toBeVisible()
  // The partial answer is still above, and no error was shown.
  await expect(page.locator('[data-kind="model"]').first()).toHaveAttribute('data-status', 'interrupted')
  await expect(page.locator('[data-kind="error"]')).toHaveCount(0)
  const chats = h.model.requests.filter((r) => r.path === '/api/chat')
  const sent = chats.at(-1)?.body.messages as Array<{ role: string; content: string }>
  expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user'])
  expect(sent[2].content).toMatch(/^Hel[\s\S]*\[Interrupted: /)
  expect(problems).toEqual([])
})
