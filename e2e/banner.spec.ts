import { expect, test } from '@playwright/test'
import { saveScreen, watchProblems } from './screens'
import { startServe, type ServeHarness } from './serve-harness'

// The "model is not ready" banner against the real `stepwise serve`: an answer proves the model
// works, so the banner goes; a compatible server that does not list the model gets a note.

let h: ServeHarness | undefined

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

test('the banner goes as soon as the model has answered', async ({ page }) => {
  // The fake's tags list another model, yet its chat answers for any name (`models` unset).
  h = await startServe({ files: { 'a.txt': 'x\n' }, model: { models: undefined, turns: [{ text: 'Hi.' }] } })
  const problems = watchProblems(page)
  await page.goto(h.url)
  await expect(page.getByTestId('onboarding')).toContainText('coder:1b cannot run yet')
  await page.getByTestId('chat-input').fill('Hello')
  await page.getByTestId('chat-input').press('Enter')
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Hi.' })).toBeVisible({ timeout: 20_000 })
  await expect(page.getByTestId('onboarding')).toHaveCount(0)
  // A new chat on the same model does not bring it back.
  await page.getByRole('button', { name: 'New chat' }).click()
  await expect(page.getByTestId('timeline-step')).toHaveCount(0)
  await expect(page.getByTestId('onboarding')).toHaveCount(0)
  expect(problems).toEqual([])
})

test('a compatible server that does not list the model gets a soft note, not an error', async ({ page }) => {
  h = await startServe({
    files: { 'a.txt': 'x\n' },
    compatible: { model: 'my-alias' },
    model: { models: ['served-model'], turns: [{ text: 'Answering as my-alias.' }] },
  })
  await page.goto(h.url)
  const note = page.getByTestId('onboarding-note')
  await expect(note).toContainText('my-alias is not listed by the server')
  await expect(page.getByTestId('onboarding')).toHaveCount(0)
  await page.getByTestId('chat-input').fill('Hello')
  await page.getByTestId('chat-input').press('Enter')
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Answering as my-alias.' })).toBeVisible({
    timeout: 20_000,
  })
  await expect(note).toHaveText('my-alias is not listed by the server; it answered, so it works.')
  await saveScreen(page, '43-compatible-note-after-answer')
  expect(h.model.requests.some((r) => r.path === '/v1/chat/completions')).toBe(true)
})
