import { expect, test } from '@playwright/test'
import { saveScreen, watchProblems } from './screens'
import { startServe, type ServeHarness } from './serve-harness'

// Models, onboarding, the project opener, the palette and settings, against the real
// `stepwise serve` and the fake model server (which also plays Ollama's /api/tags and /api/pull).

let h: ServeHarness | undefined

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

test('switch the model mid-session: the next turn goes to the new model', async ({ page }) => {
  h = await startServe({
    files: { 'a.txt': 'hello\n' },
    model: {
      models: ['coder:1b', 'coder:7b'],
      turns: [{ text: 'From the small one.' }, { text: 'From the big one.' }],
    },
  })
  const problems = watchProblems(page)
  await page.goto(h.url)
  await page.getByTestId('chat-input').fill('First question')
  await page.getByTestId('chat-input').press('Enter')
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'From the small one.' })).toBeVisible()
  await expect(page.getByTestId('send-button')).toBeVisible()

  await page.getByTestId('model-picker').click()
  const option = page.locator('[data-testid="model-option"][data-model="coder:7b"]')
  await expect(option).toBeVisible()
  await expect(option).toContainText('7.6B')
  await saveScreen(page, '09-model-picker')
  await option.click()
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('model-picker')).toContainText('coder:7b')

  await page.getByTestId('chat-input').fill('Second question')
  await page.getByTestId('chat-input').press('Enter')
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'From the big one.' })).toBeVisible()
  const models = h.model.requests.filter((r) => r.path === '/api/chat').map((r) => r.body.model)
  expect(models).toEqual(['coder:1b', 'coder:7b'])
  // Each model row names the model that answered.
  await expect(page.locator('[data-kind="model"]').filter({ hasText: 'From the big one.' })).toContainText(
    'coder:7b',
  )
  await expect(page.locator('[data-kind="model"]').filter({ hasText: 'From the small one.' })).toContainText(
    'coder:1b',
  )
  await expect(page.getByTestId('context-meter')).toBeVisible()
  await saveScreen(page, '10-after-model-switch')
  expect(problems).toEqual([])
})

test('onboarding names a model that is not pulled, and pulls it with a progress bar', async ({ page }) => {
  h = await startServe({
    files: { 'a.txt': 'hello\n' },
    model: { models: ['other:3b'], pullable: ['coder:1b'], pullStepMs: 150 },
  })
  const problems = watchProblems(page)
  await page.goto(h.url)
  const banner = page.getByTestId('onboarding')
  await expect(banner).toContainText('coder:1b is not pulled')
  await saveScreen(page, '11-onboarding')
  await page.getByTestId('onboarding-pull').click()
  const bar = page.getByTestId('pull-progress')
  await expect(bar).toBeVisible()
  await expect
    .poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 10_000 })
    .toBeGreaterThan(0)
  await saveScreen(page, '12-pulling')
  await expect(banner).toBeHidden({ timeout: 10_000 })
  expect(problems).toEqual([])
})

test('open a project by typing its path with completion; the palette and settings', async ({ page }) => {
  h = await startServe({ files: { 'a.txt': 'hello\n' }, repoFlag: false })
  const problems = watchProblems(page)
  await page.goto(h.url)
  const field = page.getByTestId('project-path')
  await expect(field).toBeVisible()
  await field.fill(h.repo.slice(0, -2))
  await expect(page.getByRole('option', { name: h.repo })).toBeVisible()
  await saveScreen(page, '13-project-opener')
  await field.fill(h.repo)
  await page.getByTestId('open-project').click()
  await expect(page.getByTestId('chat-input')).toBeEnabled()
  await expect(page.getByTestId('status-bar')).toContainText('main')

  await page.keyboard.press('Control+k')
  await expect(page.getByTestId('command-palette')).toBeVisible()
  await page.keyboard.type('settings')
  await saveScreen(page, '14-command-palette')
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('settings-dialog')).toBeVisible()
  await page.getByTestId('theme-select').selectOption('dark')
  await page.getByTestId('settings-save').click()
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark')
  await saveScreen(page, '15-settings-dark')
  expect(problems).toEqual([])
})
