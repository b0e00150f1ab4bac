import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { expect, test, type Page } from '@playwright/test'
import { UNNAMED_CONTROLS } from './a11y'
import { startFakeModelServer, type FakeModelServer } from '../test/fake-model-server'
import { saveScreen, watchProblems } from './screens'
import { startServe, type ServeHarness } from './serve-harness'

// The first run's setup card against the real `stepwise serve`: it says what is missing, fixes
// it in place (Ollama's address, Retry, a cloud server), is never "ready" while Ollama is down,
// and goes as soon as the problem is fixed — from the card or from the picker's Retry.

let h: ServeHarness | undefined
const extra: FakeModelServer[] = []

test.afterEach(async () => {
  await h?.close()
  h = undefined
  for (const s of extra.splice(0)) await s.close()
})

/** A port nothing listens on now, to start a server on later (Ollama started after the app). */
async function freePort(): Promise<number> {
  const s = await startFakeModelServer()
  const port = Number(new URL(s.url).port)
  await s.close()
  return port
}

const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 700 },
] as const

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/**
 * axe-core's WCAG 2 A/AA violations inside `selector` (rule id and the first offending node); a
 * run that checked nothing fails, so the check cannot pass by looking at an empty page.
 */
async function axeViolations(page: Page, selector: string): Promise<string[]> {
  await page.evaluate(AXE)
  const result = (await page.evaluate(`axe
    .run(document.querySelector(${JSON.stringify(selector)}), { runOnly: ['wcag2a', 'wcag2aa'] })
    .then((r) => ({
      passes: r.passes.length,
      violations: r.violations.map((v) => v.id + ': ' + v.nodes[0].html.slice(0, 100)),
    }))`)) as { passes: number; violations: string[] }
  expect(result.passes).toBeGreaterThan(3)
  return result.violations
}

async function expectNotReady(page: Page): Promise<void> {
  await expect(page.getByTestId('session-state')).toHaveText('model not ready')
}

for (const size of SIZES) {
  for (const theme of ['light', 'dark'] as const) {
    const name = `${size.width}-${theme}`

    test(`Ollama down: the card says so, and goes once the picker's Retry reaches it (${size.width}×${size.height}, ${theme})`, async ({
      page,
    }) => {
      await page.setViewportSize(size)
      await page.emulateMedia({ colorScheme: theme })
      const port = await freePort()
      const down = `http://127.0.0.1:${port}`
      h = await startServe({ files: { 'a.txt': 'x\n' }, args: ['--base-url', down] })
      const problems = watchProblems(page)
      await page.goto(h.url)
      const card = page.getByTestId('onboarding')
      await expect(card).toContainText('No model server is reachable yet')
      await expect(card.getByTestId('setup-problem')).toHaveText(`Ollama is not running at ${down}.`)
      // Every field the card speaks of is in it: Ollama's address with Retry, a key, a server URL.
      await expect(card.getByTestId('ollama-address')).toHaveValue(down)
      await expect(card.getByTestId('setup-retry')).toBeVisible()
      await expect(card.getByTestId('api-key')).toBeVisible()
      await expect(card.getByTestId('base-url')).toBeVisible()
      await expectNotReady(page)
      await saveScreen(page, `62-setup-card-ollama-down-${name}`)
      expect(await axeViolations(page, '[data-testid="onboarding"]')).toEqual([])
      expect(await page.evaluate(UNNAMED_CONTROLS)).toEqual([])

      // Ollama starts; the picker's Retry finds it, and the card goes with no other action.
      await page.getByTestId('model-picker').click()
      const dialog = page.getByTestId('model-picker-dialog')
      await expect(dialog.getByTestId('model-group-ollama')).toContainText(`Not running at ${down}.`)
      expect(await axeViolations(page, '[data-testid="model-picker-dialog"]')).toEqual([])
      // The picker asks again as it opens: Ollama starts only once that answer is in.
      await expect(dialog.getByTestId('model-picker-panel')).toHaveAttribute('aria-busy', 'false')
      extra.push(await startFakeModelServer({ port, models: ['coder:1b'] }))
      await dialog.getByTestId('retry-ollama').click()
      await expect(dialog.locator('[data-provider="ollama"][data-model="coder:1b"]')).toBeVisible()
      await page.keyboard.press('Escape')
      await expect(card).toHaveCount(0)
      await expect(page.getByTestId('session-state')).toHaveText('ready')
      expect(problems).toEqual([])
    })

    test(`the card fixes Ollama's address in place, or switches to a cloud server (${size.width}×${size.height}, ${theme})`, async ({
      page,
    }) => {
      await page.setViewportSize(size)
      await page.emulateMedia({ colorScheme: theme })
      const down = `http://127.0.0.1:${await freePort()}`
      h = await startServe({ files: { 'a.txt': 'x\n' }, args: ['--base-url', down] })
      const compat = await startFakeModelServer({
        models: ['gpt-local'],
        turns: [{ text: 'Hello from the cloud.' }],
      })
      extra.push(compat)
      const problems = watchProblems(page)
      await page.goto(h.url)
      const card = page.getByTestId('onboarding')
      await expect(card).toBeVisible()

      // A cloud server instead: its URL in the card, then one of its models.
      await card.getByTestId('base-url').fill(compat.v1Url)
      await card.getByRole('button', { name: 'Connect' }).click()
      const alternative = card.getByTestId('setup-alternatives').getByRole('button', { name: /gpt-local/ })
      await expect(alternative).toBeVisible()
      await expect(card).toContainText(`Ollama is not running at ${down}.`)
      await saveScreen(page, `63-setup-card-cloud-offered-${name}`)
      await alternative.click()
      await expect(card).toHaveCount(0)
      await expect(page.getByTestId('model-picker')).toContainText('OpenAI-compatible · gpt-local')
      await page.getByTestId('chat-input').fill('Hello')
      await page.getByTestId('chat-input').press('Enter')
      await expect(
        page.getByTestId('timeline-step').filter({ hasText: 'Hello from the cloud.' }),
      ).toBeVisible()

      // Back on Ollama at the wrong address: fixing the address in the card clears it.
      await page.getByTestId('chat-input').fill('/model ollama:coder:1b')
      await page.getByTestId('chat-input').press('Enter')
      await expect(page.getByText(/Ollama at .* did not answer/)).toBeVisible()
      await page.getByTestId('model-picker').click()
      const dialog = page.getByTestId('model-picker-dialog')
      await dialog.getByRole('tab', { name: 'Ollama' }).click()
      await dialog.getByTestId('ollama-address').fill(h.model.url)
      await dialog.getByTestId('address-ollama').getByRole('button', { name: 'Save' }).click()
      await dialog.locator('[data-provider="ollama"][data-model="coder:1b"]').click()
      await expect(page.getByTestId('model-picker')).toContainText('Ollama · coder:1b')
      await expect(card).toHaveCount(0)
      await expect(page.getByTestId('onboarding-note')).toHaveCount(0)
      expect(problems).toEqual([])
    })
  }
}
