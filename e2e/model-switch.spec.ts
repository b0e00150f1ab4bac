import { expect, test, type Page } from '@playwright/test'
import { startFakeModelServer, type FakeModelServer } from '../test/fake-model-server'
import { saveScreen, watchProblems } from './screens'
import { startServe, type ServeHarness } from './serve-harness'

// One list of every configured provider's models, per-provider server addresses, /model across
// providers and a mark on the timeline at each switch — against the real `stepwise serve`, a
// fake Ollama and a second fake server playing an OpenAI-compatible one (both on 127.0.0.1).

let h: ServeHarness | undefined
let compat: FakeModelServer | undefined

test.afterEach(async () => {
  await h?.close()
  await compat?.close()
  h = undefined
  compat = undefined
})

async function send(page: Page, text: string): Promise<void> {
  const box = page.getByTestId('chat-input')
  await box.fill(text)
  await box.press('Enter')
}

const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 700 },
] as const

for (const size of SIZES) {
  for (const theme of ['light', 'dark'] as const) {
    test(`one list across providers, /model across them and a mark at each switch (${size.width}×${size.height}, ${theme})`, async ({
      page,
    }) => {
      await page.setViewportSize(size)
      await page.emulateMedia({ colorScheme: theme })
      h = await startServe({
        files: { 'a.txt': 'hello\n' },
        model: { models: ['coder:1b', 'coder:7b'], turns: [{ text: 'From Ollama.' }] },
      })
      compat = await startFakeModelServer({
        models: ['gpt-local'],
        turns: [{ text: 'From the compatible server.' }, { text: 'Compatible again.' }],
      })
      const problems = watchProblems(page)
      const name = `${size.width}-${theme}`
      await page.goto(h.url)
      // The first turn starts the session (snapshot, index): slow when the machine is busy.
      await send(page, 'First question')
      await expect(page.getByTestId('timeline-step').filter({ hasText: 'From Ollama.' })).toBeVisible({
        timeout: 20_000,
      })

      // Set the compatible server up once, in its tab.
      await page.getByTestId('model-picker').click()
      const dialog = page.getByTestId('model-picker-dialog')
      await dialog.getByRole('tab', { name: 'OpenAI-compatible' }).click()
      await dialog.getByTestId('base-url').fill(compat.v1Url)
      await dialog.getByRole('button', { name: 'Connect' }).click()
      await expect(dialog.locator('[data-testid="model-option"][data-model="gpt-local"]')).toBeVisible()

      // Every configured provider's models in one list, grouped.
      await dialog.getByRole('tab', { name: 'All models' }).click()
      await expect(dialog.getByTestId('model-group-ollama').getByTestId('model-option')).toHaveCount(2)
      await expect(dialog.getByTestId('model-group-openai')).toContainText('No API key yet.')
      await expect(dialog.getByTestId('model-group-openai-chat')).toContainText(compat.v1Url)
      // The window and temperature of the model in use stay one scroll away (the meter's "set it").
      await expect(dialog.getByTestId('model-options')).toBeAttached()
      await saveScreen(page, `60-model-list-all-providers-${name}`)
      await dialog.locator('[data-provider="openai-chat"][data-model="gpt-local"]').click()
      await expect(dialog).toHaveCount(0)
      await expect(page.getByTestId('model-picker')).toContainText('OpenAI-compatible · gpt-local')

      const switches = page.locator('[data-kind="switch"]')
      await expect(switches).toHaveCount(1)
      await expect(switches.first()).toContainText('Model → OpenAI-compatible · gpt-local')
      await expect(switches.first()).toContainText('was Ollama · coder:1b')
      await send(page, 'Second question')
      await expect(
        page.getByTestId('timeline-step').filter({ hasText: 'From the compatible server.' }),
      ).toBeVisible()

      // /model NAME finds the provider that has it; back and forth keeps the compatible server's URL.
      await send(page, '/model coder:7b')
      await expect(page.getByTestId('model-picker')).toContainText('Ollama · coder:7b')
      await send(page, '/model gpt-local')
      await expect(page.getByTestId('model-picker')).toContainText('OpenAI-compatible · gpt-local')
      await expect(switches).toHaveCount(3)
      await send(page, 'Third question')
      await expect(page.getByTestId('timeline-step').filter({ hasText: 'Compatible again.' })).toBeVisible()
      const chats = compat.requests.filter((r) => r.path === '/v1/chat/completions')
      expect(chats.map((r) => r.body.model)).toEqual(['gpt-local', 'gpt-local'])

      // A name nobody lists is said, never switched to, and Ollama is never asked to pull it.
      await send(page, '/model gpt-5-imaginary')
      await expect(page.getByText('No configured provider lists a model named gpt-5-imaginary')).toBeVisible()
      await expect(page.getByTestId('model-picker')).toContainText('OpenAI-compatible · gpt-local')
      await send(page, '/model coder')
      await expect(page.getByText(/Did you mean coder:1b \(Ollama\), coder:7b \(Ollama\)/)).toBeVisible()
      expect(h.model.requests.some((r) => r.path === '/api/pull')).toBe(false)
      await saveScreen(page, `61-model-switch-marks-${name}`)

      // A row's details say what it switched to and from.
      await switches.first().click()
      await expect(page.getByText(compat.v1Url).first()).toBeVisible()
      expect(problems).toEqual([])
    })
  }
}
