import { expect, test } from '@playwright/test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { saveScreen } from './screens'
import { startServe, type ServeHarness } from './serve-harness'

// "Always allow" from the approval card, against a real `stepwise serve`, a real git project and the
// fake model server: the same command then runs without asking, a different one still asks, and the
// rule is listed (and removable) in Settings.

let h: ServeHarness | undefined

test.setTimeout(90_000)

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

const run = (command: string) => ({ toolCalls: [{ name: 'run_command', arguments: { command } }] })

test('always allow a command for this chat: the same command runs unasked, another still asks', async ({
  page,
}) => {
  h = await startServe({
    files: { 'README.md': '# demo\n' },
    model: {
      turns: [
        run('touch made-it'),
        run('touch made-it --no-create'),
        run('touch other-file'),
        { text: 'Done.' },
      ],
    },
  })
  await page.goto(h.url)
  await page.getByTestId('chat-input').fill('Make the files')
  await page.getByTestId('send-button').click()

  const card = page.getByTestId('approval-panel')
  await expect(card.getByTestId('approval-command')).toHaveText('touch made-it', { timeout: 20_000 })
  // The card says what the rule will match before it is saved.
  await expect(card.getByTestId('approval-rule-preview')).toContainText('touch made-it …')
  await expect(card.getByTestId('approval-rule-preview')).toContainText('with any further arguments')
  await saveScreen(page, '70-always-allow-card')
  await card.getByTestId('always-session-button').click()

  // `touch made-it --no-create` runs under the rule; `touch other-file` asks.
  await expect(card.getByTestId('approval-command')).toHaveText('touch other-file', { timeout: 20_000 })
  await card.getByTestId('reject-button').click()
  await page.getByTestId('reject-reason').fill('Not that one.')
  await page.getByTestId('reject-confirm').click()
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Done.' })).toBeVisible()
  expect(existsSync(join(h.repo, 'made-it'))).toBe(true)
  expect(existsSync(join(h.repo, 'other-file'))).toBe(false)

  // The rule is listed in Settings, with its preview, and can be removed.
  await page.keyboard.press('Control+k')
  await page.keyboard.type('settings')
  await page.keyboard.press('Enter')
  const rules = page.getByTestId('approval-rules')
  await expect(rules.getByTestId('approval-rule')).toHaveCount(1)
  await expect(rules.getByTestId('approval-rule')).toContainText('touch made-it …')
  await expect(rules.getByTestId('approval-rule')).toContainText('this chat')
  await saveScreen(page, '71-always-allow-rules')
  await rules.getByTestId('approval-rule-remove').click()
  await expect(rules.getByTestId('approval-rule')).toHaveCount(0)
})

test('a denied command offers no "always allow"', async ({ page }) => {
  h = await startServe({
    files: { 'README.md': '# demo\n' },
    model: { turns: [run('npm publish --dry-run'), { text: 'ok' }] },
  })
  await page.goto(h.url)
  await page.getByTestId('chat-input').fill('Publish')
  await page.getByTestId('send-button').click()
  // Denied outright: no card at all, the refusal is on the timeline.
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'ok' })).toBeVisible({ timeout: 20_000 })
  await expect(page.getByTestId('always-session-button')).toHaveCount(0)
})
