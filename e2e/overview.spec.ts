import { expect, test, type Page } from '@playwright/test'
import { UNNAMED_CONTROLS } from './a11y'
import { saveScreen, watchProblems } from './screens'
import { startServe, type ServeHarness } from './serve-harness'

// The timeline's overview (issue 15): the session on a time axis, drawn on a canvas, with a
// button per bar for the keyboard, screen readers and these tests. A real `stepwise serve`,
// a real git project and the fake model server; screens in test-results/screens (80-…).

const ORIGINAL = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'
const CHANGED = ORIGINAL.replace('line 2\n', 'line TWO\n')

let h: ServeHarness | undefined

test.setTimeout(90_000)

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

/** One turn with every kind of bar: a read, an edit that waited, a command, a failed read, a rejected write. */
async function richSession(page: Page): Promise<void> {
  h = await startServe({
    files: { 'a.txt': ORIGINAL, 'README.md': '# demo\n' },
    model: {
      turns: [
        {
          text: 'Reading a.txt first.',
          toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }],
          delayMs: 400,
        },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: CHANGED } }], delayMs: 300 },
        { toolCalls: [{ name: 'run_command', arguments: { command: 'ls' } }], delayMs: 250 },
        { toolCalls: [{ name: 'read_file', arguments: { path: 'missing.txt' } }], delayMs: 250 },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'new\n' } }], delayMs: 250 },
        {
          text: 'Done: a.txt changed, b.txt left alone.',
          delayMs: 300,
          usage: { inputTokens: 2400, outputTokens: 60 },
        },
        { text: 'Nothing more to do.', delayMs: 500, usage: { inputTokens: 2600, outputTokens: 20 } },
      ],
    },
  })
  await page.goto(h.url)
  await page.getByTestId('chat-input').fill('Change line 2 of a.txt')
  await page.getByTestId('send-button').click()
  // The diff view loads Monaco on first use: slow on a busy machine.
  await expect(page.getByTestId('approve-button')).toBeVisible({ timeout: 20_000 })
  // The wait shows on the time axis: leave it a moment.
  await page.waitForTimeout(900)
  await page.getByTestId('approve-button').click()
  await expect(page.getByTestId('reject-button')).toBeVisible({ timeout: 20_000 })
  await page.waitForTimeout(500)
  await page.getByTestId('reject-button').click()
  await page.getByTestId('reject-reason').fill('No new files, please.')
  await page.getByTestId('reject-confirm').click()
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'b.txt left alone' })).toBeVisible()
  await expect(page.getByTestId('send-button')).toBeVisible()
  await page.getByTestId('chat-input').fill('Anything else?')
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Nothing more to do.' })).toBeVisible()
  await expect(page.getByTestId('send-button')).toBeVisible()
}

const bar = (page: Page, seq: string | null) =>
  page.locator(`[data-testid="timeline-bar"][data-seq="${seq}"]`)
const row = (page: Page, seq: string | null) =>
  page.locator(`[data-testid="timeline-step"][data-seq="${seq}"]`)

test('the overview draws every step on a time axis, in both themes, and selects with the rows', async ({
  page,
}) => {
  const problems = watchProblems(page)
  await page.setViewportSize({ width: 1400, height: 900 })
  await richSession(page)
  const overview = page.getByTestId('timeline-overview')
  await expect(overview).toBeVisible()

  // A bar per model call, tool call and turn; the statuses as the rows say them.
  const bars = page.getByTestId('timeline-bar')
  await expect(bars.and(page.locator('[data-bar-kind="turn"]'))).toHaveCount(2)
  await expect(bars.and(page.locator('[data-bar-kind="model"]'))).toHaveCount(7)
  await expect(bars.and(page.locator('[data-bar-kind="command"]'))).toHaveCount(1)
  await expect(bars.and(page.locator('[data-bar-kind="tool"][data-bar-status="rejected"]'))).toHaveCount(1)
  await expect(bars.and(page.locator('[data-bar-kind="tool"][data-bar-status="error"]'))).toHaveCount(1)
  // A checkpoint sits in its call's row (its marker), or in a row of its own when it has no call shown.
  const checkpoints = await page
    .locator(
      '[data-testid="timeline-step"] [data-kind="checkpoint"], [data-testid="timeline-step"][data-kind="checkpoint"]',
    )
    .count()
  expect(checkpoints).toBeGreaterThan(0)
  await expect(bars.and(page.locator('[data-bar-kind="checkpoint"]'))).toHaveCount(checkpoints)
  for (const step of await page.locator('[data-testid="timeline-step"][data-kind="tool"]').all()) {
    const seq = await step.getAttribute('data-seq')
    await expect(bar(page, seq)).toHaveAttribute('data-bar-status', (await step.getAttribute('data-status'))!)
  }
  // Every bar has a name that says what it was and how long it took.
  const names = await bars.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''))
  expect(names.find((n) => n.startsWith('write_file a.txt'))).toMatch(
    /waited [0-9.]+ s for approval \(accept\)/,
  )
  expect(names.find((n) => n.startsWith('coder:1b · reply 6'))).toContain('2.4k tokens in · 60 out')

  await page.emulateMedia({ colorScheme: 'light' })
  await page.waitForTimeout(100)
  await overview.screenshot({ path: 'test-results/screens/80-overview-light.png' })
  await saveScreen(page, '81-overview-page-light')
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.waitForTimeout(100)
  await overview.screenshot({ path: 'test-results/screens/82-overview-dark.png' })
  await saveScreen(page, '83-overview-page-dark')

  // Click a bar: its row is selected and the details pane shows it.
  const writeSeq = await page
    .locator('[data-testid="timeline-step"][data-kind="tool"]')
    .filter({ hasText: 'write_file' })
    .first()
    .getAttribute('data-seq')
  await bar(page, writeSeq).click()
  await expect(row(page, writeSeq)).toHaveAttribute('aria-current', 'true')
  await expect(page.getByTestId('step-details')).toContainText('write_file')
  await expect(bar(page, writeSeq)).toHaveAttribute('aria-pressed', 'true')

  // Select a row: its bar is the pressed one.
  const firstRead = page.locator('[data-testid="timeline-step"][data-kind="tool"]').first()
  const readSeq = await firstRead.getAttribute('data-seq')
  await firstRead.click()
  await expect(bar(page, readSeq)).toHaveAttribute('aria-pressed', 'true')
  await expect(bar(page, writeSeq)).toHaveAttribute('aria-pressed', 'false')

  // Hover shows the bar's name, duration and tokens.
  const box = (await bar(page, writeSeq).boundingBox())!
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
  await expect(page.getByRole('tooltip')).toContainText('write_file a.txt')
  await expect(page.getByRole('tooltip')).toContainText('for approval')
  await saveScreen(page, '84-overview-hover')
  await page.mouse.move(0, 0)

  expect(await page.evaluate(UNNAMED_CONTROLS)).toEqual([])
  expect(problems).toEqual([])
})

test('the overview zooms, pans, brushes the rows and walks the bars with the keyboard', async ({ page }) => {
  const problems = watchProblems(page)
  await page.setViewportSize({ width: 1400, height: 900 })
  await richSession(page)
  const plot = page.locator('.ov-plot')
  const pb = (await plot.boundingBox())!
  const lastModel = page.locator('[data-testid="timeline-bar"][data-bar-kind="model"]').last()
  const widthOf = async () => (await lastModel.boundingBox())!.width

  // Wheel zooms in at the pointer: bars get wider; 0 fits the whole session again.
  const before = await widthOf()
  const lb = (await lastModel.boundingBox())!
  await page.mouse.move(lb.x + lb.width / 2, lb.y + lb.height / 2)
  for (let i = 0; i < 4; i++) await page.mouse.wheel(0, -200)
  await expect.poll(widthOf).toBeGreaterThan(before * 2)
  // Drag pans: the bar moves with the pointer.
  const x0 = (await lastModel.boundingBox())!.x
  await page.mouse.move(pb.x + pb.width / 2, pb.y + 60)
  await page.mouse.down()
  await page.mouse.move(pb.x + pb.width / 2 - 120, pb.y + 60, { steps: 5 })
  await page.mouse.up()
  await expect.poll(async () => (await lastModel.boundingBox())!.x).toBeLessThan(x0 - 60)
  await saveScreen(page, '85-overview-zoomed')
  await lastModel.focus()
  await page.keyboard.press('0')
  await expect.poll(widthOf).toBeLessThan(before * 1.5)

  // Brush a range on the ruler: the rows narrow to the steps in it; Esc shows them all.
  const allRows = await page.getByTestId('timeline-step').count()
  await page.mouse.move(pb.x + 70, pb.y + 6)
  await page.mouse.down()
  await page.mouse.move(pb.x + 70 + (pb.width - 80) * 0.35, pb.y + 6, { steps: 6 })
  await page.mouse.up()
  await expect(page.getByTestId('overview-brush')).toBeVisible()
  await expect.poll(() => page.getByTestId('timeline-step').count()).toBeLessThan(allRows)
  await expect(page.getByTestId('timeline-step').first()).toBeVisible()
  await saveScreen(page, '86-overview-brushed')
  await page.getByTestId('overview-brush').getByRole('button').click()
  await expect.poll(() => page.getByTestId('timeline-step').count()).toBe(allRows)

  // Keyboard: Tab reaches a bar; arrows walk to the next step and select it.
  const first = page.getByTestId('timeline-bar').first()
  await first.focus()
  await page.keyboard.press('Home')
  const firstSeq = await first.getAttribute('data-seq')
  await expect(first).toBeFocused()
  await page.keyboard.press('ArrowRight')
  const second = page.getByTestId('timeline-bar').nth(1)
  await expect(second).toBeFocused()
  await expect(row(page, await second.getAttribute('data-seq'))).toHaveAttribute('aria-current', 'true')
  expect(await second.getAttribute('data-seq')).not.toBe(firstSeq)
  await expect(page.getByRole('tooltip')).toBeVisible()
  expect(problems).toEqual([])
})

test('in replay the overview is the scrubber: activating a bar moves replay to that step', async ({
  page,
}) => {
  const problems = watchProblems(page)
  await page.setViewportSize({ width: 1400, height: 900 })
  await richSession(page)
  await page.getByTestId('replay-start').click()
  const scrubber = page.getByTestId('replay-scrubber')
  const total = Number(await scrubber.getAttribute('max'))
  await expect(scrubber).toHaveValue(String(total))
  const firstRead = page.locator('[data-testid="timeline-bar"][data-bar-kind="tool"]').first()
  // Activated from the keyboard: entering replay re-lays the overview out, and a pointer click
  // computed before that settles can land on the ruler (a scrub) instead of the bar.
  await firstRead.focus()
  await page.keyboard.press('Enter')
  await expect.poll(async () => Number(await scrubber.inputValue())).toBeLessThan(total / 2)
  await expect.poll(async () => Number(await scrubber.inputValue())).toBeGreaterThan(1)
  // Rows after that step are not there yet in the replayed view.
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Nothing more to do.' })).toHaveCount(0)
  // Dragging along the ruler scrubs forward.
  const pb = (await page.locator('.ov-plot').boundingBox())!
  await page.mouse.move(pb.x + 70, pb.y + 6)
  await page.mouse.down()
  await page.mouse.move(pb.x + pb.width - 12, pb.y + 6, { steps: 8 })
  await page.mouse.up()
  await expect.poll(async () => Number(await scrubber.inputValue())).toBeGreaterThan(total - 3)
  await saveScreen(page, '87-overview-replay')
  expect(problems).toEqual([])
})
