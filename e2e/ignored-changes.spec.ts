import { expect, test } from '@playwright/test'
import { saveScreen, watchProblems } from './screens'
import { startServe, type ServeHarness } from './serve-harness'

// What a command changed under an ignored folder shows on the step that did it. The case: code
// appended by a command to node_modules/left-pad/index.js, which the next `npm test` runs (the shape
// of the event-stream / flatmap-stream incident, 2018), was in no checkpoint and no review.

let h: ServeHarness | undefined

test.setTimeout(90_000)

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

for (const [width, height, theme] of [
  [1440, 900, 'light'],
  [1024, 700, 'dark'],
] as const) {
  test(`${width}×${height} ${theme}: a command's change under node_modules is on its step`, async ({
    page,
  }) => {
    const problems = watchProblems(page)
    await page.setViewportSize({ width, height })
    await page.emulateMedia({ colorScheme: theme })
    h = await startServe({
      files: {
        '.gitignore': 'node_modules/\n',
        'index.js': 'require("left-pad")\n',
        'node_modules/left-pad/index.js': 'module.exports = pad\n',
      },
      approve: 'full-auto',
      model: {
        turns: [
          {
            toolCalls: [
              {
                name: 'run_command',
                arguments: { command: 'echo "evil()" >> node_modules/left-pad/index.js' },
              },
            ],
          },
          { text: 'Patched the dependency.' },
        ],
      },
    })
    await page.goto(h.url)
    await page.getByTestId('chat-input').fill('Patch left-pad')
    await page.getByTestId('send-button').click()
    await expect(page.getByText('Patched the dependency.')).toBeVisible({ timeout: 30_000 })
    await page
      .locator('[data-testid="timeline-step"][data-kind="tool"]', { hasText: 'run_command' })
      .first()
      .click()
    const ignored = page.getByTestId('checkpoint-ignored')
    await expect(ignored).toContainText('modified node_modules/left-pad/index.js')
    await expect(ignored).toContainText('kept')
    await saveScreen(page, `97-ignored-change-${width}-${theme}`)
    expect(problems).toEqual([])
  })
}
