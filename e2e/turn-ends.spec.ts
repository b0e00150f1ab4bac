import { spawnSync } from 'node:child_process'
import { expect, test } from '@playwright/test'
import { startFakeModelServer, type FakeModelServer } from '../test/fake-model-server'
import { watchProblems } from './screens'
import { cli, startServe, type ServeHarness } from './serve-harness'

/*
 * A chat goes on after the user stops the model while it is writing: the partial answer
 * stays on the timeline, marked interrupted, and the next message reaches the model with
 * that partial answer before it (the transcript the fake server checks is consistent).
 */

let h: ServeHarness | undefined
let revived: FakeModelServer | undefined

test.afterEach(async () => {
  await revived?.close()
  revived = undefined
  await h?.close()
  h = undefined
})

const chatRequests = (server: FakeModelServer) =>
  server.requests.filter((r) => r.path === '/api/chat').map((r) => r.body.messages as Array<{ role: string }>)

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

test('the model server killed mid-answer, then started again: Retry works', async ({ page }) => {
  test.setTimeout(90_000)
  h = await startServe({
    files: { 'a.txt': 'alpha\n' },
    model: { turns: [{ hang: true, partial: true }] },
  })
  const problems = watchProblems(page)
  await page.goto(h.url)
  await page.getByTestId('chat-input').fill('Explain a.txt')
  await page.getByTestId('chat-input').press('Enter')
  const model = page.locator('[data-kind="model"]').first()
  await expect(model).toContainText('Hel')
  // The server dies mid-stream: the connection drops, and every retry finds nothing listening.
  const port = Number(new URL(h.model.url).port)
  await h.model.close()
  await expect(page.getByTestId('error-actions')).toBeVisible({ timeout: 30_000 })
  await expect(page.locator('[data-kind="error"]')).toHaveCount(1)
  // What the user saw stays, above the one error card.
  await expect(model).toContainText('Hel')

  revived = await startFakeModelServer({ port, models: ['coder:1b'], turns: [{ text: 'Back again.' }] })
  await page.getByTestId('error-retry').click()
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Back again.' })).toBeVisible()
  await expect(page.getByTestId('error-actions')).toBeHidden()
  await expect(page.locator('[data-kind="user"]')).toHaveCount(1)
  // The retry asked the model again from the user's message: the cut answer is not sent as its own.
  expect(
    chatRequests(revived)
      .at(-1)
      ?.map((m) => m.role),
  ).toEqual(['system', 'user'])
  expect(problems).toEqual([])
})

test('ten 500s in a row, then Retry until the server is back: the chat goes on', async ({ page }) => {
  test.setTimeout(90_000)
  const fail = { status: 500, body: JSON.stringify({ error: 'internal server error' }) }
  h = await startServe({
    files: { 'a.txt': 'alpha\n' },
    model: { turns: [...Array.from({ length: 10 }, () => fail), { text: 'Up again.' }] },
  })
  await page.goto(h.url)
  await page.getByTestId('chat-input').fill('Explain a.txt')
  await page.getByTestId('chat-input').press('Enter')
  const answered = page.getByTestId('timeline-step').filter({ hasText: 'Up again.' })
  // Each turn tries four times: two turns fail (eight 500s), the user presses Retry after each.
  const errors = page.locator('[data-kind="error"]')
  for (let turn = 1; turn <= 2; turn++) {
    await expect(page.getByTestId('error-actions')).toBeVisible({ timeout: 30_000 })
    await expect(errors).toHaveCount(turn)
    expect(h.model.turnsUsed).toBe(4 * turn)
    await page.getByTestId('error-retry').click()
    await expect.poll(() => h!.model.turnsUsed, { timeout: 10_000 }).toBeGreaterThan(4 * turn)
  }
  await expect(answered).toBeVisible({ timeout: 30_000 })
  await expect(page.getByTestId('error-actions')).toBeHidden()
  expect(h.model.turnsUsed).toBe(11)
  await expect(page.locator('[data-kind="user"]')).toHaveCount(1)
  expect(
    chatRequests(h.model)
      .at(-1)
      ?.map((m) => m.role),
  ).toEqual(['system', 'user'])
})

test('a server that accepts and never answers: a first-token timeout error within the configured time', async ({
  page,
}) => {
  test.setTimeout(60_000)
  h = await startServe({
    files: { 'a.txt': 'alpha\n' },
    args: ['--first-token-timeout', '2'],
    model: { turns: Array.from({ length: 4 }, () => ({ hang: true as const })) },
  })
  await page.goto(h.url)
  const sent = Date.now()
  await page.getByTestId('chat-input').fill('Explain a.txt')
  await page.getByTestId('chat-input').press('Enter')
  const error = page.locator('[data-kind="error"]')
  // Four attempts of 2 s each plus the backoff between them (at most 0.5 + 1 + 2 s).
  await expect(error).toBeVisible({ timeout: 25_000 })
  const took = Date.now() - sent
  expect(took).toBeGreaterThanOrEqual(4 * 2_000)
  expect(took).toBeLessThan(25_000)
  await expect(error).toHaveCount(1)
  await expect(error).toContainText('within 2 s')
  await expect(error).toContainText('first-token timeout')
  // The app's advice, not the CLI's flag.
  await expect(page.getByTestId('error-actions')).toBeVisible()
  await expect(error).not.toContainText('--first-token-timeout')
  expect(h.model.turnsUsed).toBe(4)
})

test('a new chat is not "running"', async ({ page }) => {
  h = await startServe({ files: { 'a.txt': 'alpha\n' } })
  await page.goto(h.url)
  await page.getByRole('button', { name: 'New chat' }).click()
  await expect(page.getByTestId('chat-input')).toBeEnabled()
  await expect(page.getByTestId('send-button')).toBeVisible()
  await expect(page.getByTestId('stop-button')).toBeHidden()
  const chat = page.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem')
  await expect(chat).toHaveCount(1)
  await expect(chat).toContainText('new')
  // Another process reading the same data folder sees it idle too.
  const listed = spawnSync(process.execPath, [cli, 'sessions', 'list', '--json', '--data-dir', h.dataDir], {
    encoding: 'utf8',
  })
  const sessions = JSON.parse(listed.stdout) as Array<{ status: string }>
  expect(sessions.length).toBeGreaterThan(0)
  for (const s of sessions) expect(s.status).not.toBe('running')
})
