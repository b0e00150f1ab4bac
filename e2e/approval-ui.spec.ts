import { expect, test, type Page } from '@playwright/test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { UNNAMED_CONTROLS } from './a11y'
import { saveScreen, watchProblems } from './screens'
import { startServe, type ServeHarness } from './serve-harness'

// Approving from the keyboard with the change in view, at 1024×700 and 1440×900 in both themes,
// against a real `stepwise serve`, a real git project and the fake model server.

let h: ServeHarness | undefined

test.setTimeout(90_000)

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

/** A 100-line file whose only change is at line 61. */
const BEFORE = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'
const AFTER = BEFORE.replace('line 61\n', 'CHANGED sixty-one\n')

const write = (path: string, content: string) => ({
  toolCalls: [{ name: 'write_file', arguments: { path, content } }],
})
const run = (command: string) => ({ toolCalls: [{ name: 'run_command', arguments: { command } }] })

/** No sideways scroll: the page is no wider than the window. */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const { scroll, client } = await page.evaluate<{ scroll: number; client: number }>(
    '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
  )
  expect(scroll, 'the page scrolls sideways').toBeLessThanOrEqual(client)
}

/** Every one of these boxes lies inside the window. */
async function expectInView(page: Page, testIds: string[]): Promise<void> {
  const width = page.viewportSize()!.width
  for (const id of testIds) {
    const box = await page.getByTestId(id).first().boundingBox()
    expect(box, `${id} is shown`).not.toBeNull()
    expect(box!.x + box!.width, `${id} ends inside the window`).toBeLessThanOrEqual(width + 0.5)
  }
}

const SIZES = [
  { width: 1024, height: 700 },
  { width: 1440, height: 900 },
] as const

for (const size of SIZES) {
  for (const theme of ['light', 'dark'] as const) {
    const tag = `${size.width}-${theme}`
    test(`approve from the keyboard with the change in view (${size.width}×${size.height}, ${theme})`, async ({
      page,
    }) => {
      const problems = watchProblems(page)
      await page.setViewportSize(size)
      await page.emulateMedia({ colorScheme: theme })
      h = await startServe({
        files: { 'a.txt': BEFORE, 'README.md': '# demo\n' },
        model: {
          turns: [
            { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
            write('a.txt', AFTER),
            write('b.txt', 'new file\nsecond line\n'),
            run('touch made-it'),
            { text: 'Done.' },
          ],
        },
      })
      await page.goto(h.url)
      // An empty chat offers ways to begin.
      await expect(page.getByTestId('starter-prompts')).toBeVisible()
      await saveScreen(page, `approval-0-empty-chat-${tag}`)
      expect(await page.evaluate(UNNAMED_CONTROLS)).toEqual([])

      await page.getByTestId('chat-input').fill('Change line 61, add b.txt, touch a file')
      await page.getByTestId('send-button').click()

      // The change at line 61 is on screen without a single scroll; the card has focus and says its keys.
      const card = page.getByTestId('approval-panel')
      await expect(card.getByTestId('approval-kind')).toHaveText('modified', { timeout: 20_000 })
      const changed = card.locator('.editor.modified .view-line').filter({ hasText: 'CHANGED sixty-one' })
      await expect(changed).toBeVisible()
      const scrollTop = await card
        .locator('.editor.modified .monaco-scrollable-element')
        .first()
        .evaluate((el) => el.scrollTop)
      expect(scrollTop).toBe(0)
      await expect(card).toBeFocused()
      await expect(card.getByTestId('approval-keys')).toContainText('Enter')
      // The side panel is too narrow for two readable columns at both sizes: inline until chosen.
      await expect(card).toHaveAttribute('data-layout', 'inline')
      await expectNoSidewaysScroll(page)
      await expectInView(page, ['status-bar', 'approval-keys', 'approve-button', 'stop-button'])
      await saveScreen(page, `approval-1-file-approval-${tag}`)
      expect(await page.evaluate(UNNAMED_CONTROLS)).toEqual([])

      // Esc in the card never stops the turn; Enter accepts.
      await page.keyboard.press('Escape')
      await expect(page.getByTestId('stop-button')).toBeVisible()
      await page.keyboard.press('Enter')

      // A new file reads as added lines: no layout choice, no removed line.
      await expect(card.getByTestId('approval-kind')).toHaveText('new file', { timeout: 20_000 })
      await expect(
        card.locator('.editor.modified .view-line').filter({ hasText: 'second line' }),
      ).toBeVisible()
      await expect(card.locator('.line-delete, .char-delete')).toHaveCount(0)
      await expect(card.getByRole('group', { name: 'Diff layout' })).toHaveCount(0)
      await saveScreen(page, `approval-2-new-file-${tag}`)
      await page.keyboard.press('y')

      // A command: "always allow" with a preview whose command words are code, not backticks.
      await expect(card.getByTestId('approval-command')).toHaveText('touch made-it', { timeout: 20_000 })
      const preview = card.getByTestId('approval-rule-preview')
      await expect(preview.locator('code').first()).toHaveText('touch made-it …')
      expect(await preview.textContent()).not.toContain('`')
      expect(await card.getByTestId('approval-reason').textContent()).not.toContain('`')
      await expect(card.getByTestId('always-project-button')).toBeVisible()
      await expectNoSidewaysScroll(page)
      await saveScreen(page, `approval-3-command-approval-${tag}`)
      // N opens the reason box; Esc closes it (and does not stop the turn); Y then approves.
      await page.keyboard.press('n')
      await expect(page.getByTestId('reject-reason')).toBeFocused()
      await page.keyboard.press('Escape')
      await expect(page.getByTestId('reject-reason')).toHaveCount(0)
      await page.keyboard.press('y')

      await expect(page.getByTestId('timeline-step').filter({ hasText: 'Done.' })).toBeVisible({
        timeout: 20_000,
      })
      expect(readFileSync(join(h.repo, 'a.txt'), 'utf8')).toBe(AFTER)
      expect(readFileSync(join(h.repo, 'b.txt'), 'utf8')).toBe('new file\nsecond line\n')
      await expectNoSidewaysScroll(page)
      await saveScreen(page, `approval-4-turn-done-${tag}`)
      expect(problems).toEqual([])
    })
  }
}

test('the chosen diff layout is remembered for the next change', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 })
  h = await startServe({
    files: { 'a.txt': BEFORE },
    model: {
      turns: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
        write('a.txt', AFTER),
        write('a.txt', BEFORE.replace('line 3\n', 'three\n')),
        { text: 'ok' },
      ],
    },
  })
  await page.goto(h.url)
  await page.getByTestId('chat-input').fill('Two changes')
  await page.getByTestId('send-button').click()
  const card = page.getByTestId('approval-panel')
  await expect(card).toHaveAttribute('data-layout', 'inline', { timeout: 20_000 })
  await card.getByRole('button', { name: 'Side by side' }).click()
  await expect(card).toHaveAttribute('data-layout', 'side')
  await card.getByTestId('approve-button').click()
  await expect(card.locator('.editor.modified .view-line').filter({ hasText: 'three' })).toBeVisible({
    timeout: 20_000,
  })
  await expect(card).toHaveAttribute('data-layout', 'side')
})

test('no sideways scroll at 1024, 1280, 1440 and 1920 px with an approval open', async ({ page }) => {
  await page.setViewportSize({ width: 1920, height: 1000 })
  h = await startServe({
    files: { 'a.txt': BEFORE },
    model: {
      turns: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
        write('a.txt', AFTER),
        { text: 'ok' },
      ],
    },
  })
  await page.goto(h.url)
  await page.getByTestId('chat-input').fill('Change it')
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('approval-panel')).toBeVisible({ timeout: 20_000 })
  for (const width of [1920, 1440, 1280, 1024]) {
    await page.setViewportSize({ width, height: 800 })
    await expectNoSidewaysScroll(page)
    await expectInView(page, ['status-bar', 'approve-button', 'reject-button'])
    const palette = await page.getByRole('button', { name: 'Commands (Ctrl+K)' }).boundingBox()
    expect(palette!.x + palette!.width).toBeLessThanOrEqual(width)
    await saveScreen(page, `approval-5-width-${width}`)
  }
})

test('a notification when an approval waits and when the turn ends while the window is in the background', async ({
  page,
}) => {
  // The browser in the background, with notifications allowed: a stand-in records what is shown.
  await page.addInitScript(`
    const shown = []
    window.__shown = shown
    window.Notification = class {
      static permission = 'granted'
      static requestPermission = async () => 'granted'
      constructor(title, opts) { shown.push(title + ': ' + ((opts && opts.body) || '')) }
      close() {}
    }
    document.hasFocus = () => false
  `)
  await page.setViewportSize({ width: 1440, height: 900 })
  h = await startServe({
    files: { 'README.md': '# demo\n' },
    model: { turns: [run('touch x'), { text: 'Done.' }] },
  })
  await page.goto(h.url)
  await page.getByTestId('chat-input').fill('Touch x')
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('approval-command')).toHaveText('touch x', { timeout: 20_000 })
  await expect
    .poll(() => page.evaluate('window.__shown'))
    .toEqual([expect.stringMatching(/^Approval needed: Run touch x\?/)])
  await page.getByTestId('approve-button').click()
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Done.' })).toBeVisible({
    timeout: 20_000,
  })
  await expect.poll(() => page.evaluate('(window.__shown).length')).toBe(2)
  expect(await page.evaluate('window.__shown[1]')).toMatch(/^The agent is done/)

  // Turned off in Settings: nothing more.
  await page.keyboard.press('Control+k')
  await page.keyboard.type('settings')
  await page.keyboard.press('Enter')
  await page.getByTestId('notify-toggle').uncheck()
  await expect(page.getByTestId('notify-sound')).toBeDisabled()
  await saveScreen(page, 'approval-6-settings-notifications')
  expect(await page.evaluate(UNNAMED_CONTROLS)).toEqual([])
  expect(await page.evaluate("localStorage.getItem('stepwise.attention')")).toContain('"notify":false')
})

test('a half-typed message stays with its chat; Until green says what it does; starters fill the box', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1024, height: 700 })
  h = await startServe({ files: { 'README.md': '# demo\n' }, model: { turns: [{ text: 'Hello.' }] } })
  await page.goto(h.url)
  await page.getByTestId('starter-prompts').getByRole('button').nth(1).click()
  await expect(page.getByTestId('chat-input')).toHaveValue('Run the tests and fix what fails.')
  await expect(page.getByTestId('chat-input')).toBeFocused()
  await page.getByTestId('chat-input').fill('Hi')
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Hello.' })).toBeVisible({
    timeout: 20_000,
  })

  await page.getByTestId('chat-input').fill('half a thought')
  await page.getByTestId('until-green').click()
  await expect(page.getByTestId('until-green-says')).toContainText('build and')
  await saveScreen(page, 'approval-7-until-green')
  await page.getByRole('button', { name: 'New chat' }).click()
  await expect(page.getByTestId('starter-prompts')).toBeVisible()
  await expect(page.getByTestId('chat-input')).toHaveValue('')
  await expect(page.getByTestId('until-green-says')).toHaveCount(0)
})

test('several changes of one step: where this one stands, what comes next, and one answer for all', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1024, height: 700 })
  h = await startServe({
    files: { 'README.md': '# demo\n' },
    model: {
      turns: [
        {
          toolCalls: [
            { name: 'write_file', arguments: { path: 'one.txt', content: '1\n' } },
            { name: 'write_file', arguments: { path: 'two.txt', content: '2\n' } },
            { name: 'write_file', arguments: { path: 'three.txt', content: '3\n' } },
          ],
        },
        { text: 'Done.' },
      ],
    },
  })
  await page.goto(h.url)
  await page.getByTestId('chat-input').fill('Three files')
  await page.getByTestId('send-button').click()
  // One review of the step's changes (review.spec.ts covers it in full).
  const step = page.getByTestId('change-review')
  await expect(step.getByTestId('review-position')).toHaveText('File 1 of 3', { timeout: 20_000 })
  await expect(step.getByTestId('review-file')).toHaveText([/one\.txt/, /two\.txt/, /three\.txt/])
  await expect(step.locator('[data-testid="review-file"][data-state="next"]')).toHaveCount(2)
  await saveScreen(page, 'approval-8-step-of-three')
  // This one alone (once its card is there to take the key), then the other two with one click.
  await expect(page.getByTestId('approval-panel')).toBeFocused()
  await page.keyboard.press('y')
  await expect(step.getByTestId('review-position')).toHaveText('File 2 of 3', { timeout: 20_000 })
  await expect(step.locator('[data-testid="review-file"][data-state="accepted"]')).toHaveCount(1)
  await step.getByTestId('review-accept-all').click()
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Done.' })).toBeVisible({
    timeout: 20_000,
  })
  for (const [name, text] of [
    ['one.txt', '1\n'],
    ['two.txt', '2\n'],
    ['three.txt', '3\n'],
  ])
    expect(readFileSync(join(h.repo, name), 'utf8')).toBe(text)
})
