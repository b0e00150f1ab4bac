import { expect, test, type Page } from '@playwright/test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pushAll } from '../src/shared/arrays'
import { axeViolations, blocking, describeViolations } from './a11y'
import { saveScreen, watchProblems } from './screens'
import { repoRoot, startServe, type ServeHarness } from './serve-harness'

// The main screens checked with axe-core (WCAG 2.x A/AA and best practices) at 1024×700 and
// 1440×900 in both themes, against the real `stepwise serve`, a real git project, a real MCP server
// (the reference "everything" server, one we did not write) and the fake model server. A serious or
// critical finding fails the spec; the lesser ones are written to the screen's notes. Each screen is
// saved to test-results/screens/a11y-*.png to be looked at.

let h: ServeHarness | undefined

test.setTimeout(180_000)

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

/** A 100-line file whose only change is at line 61. */
const BEFORE = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'
const AFTER = BEFORE.replace('line 61\n', 'CHANGED sixty-one\n')
const everything = join(repoRoot, 'node_modules', '.bin', 'mcp-server-everything')

const SIZES = [
  { width: 1024, height: 700 },
  { width: 1440, height: 900 },
] as const

async function fromPalette(page: Page, command: string): Promise<void> {
  await page.keyboard.press('Control+k')
  await page.keyboard.type(command)
  await page.keyboard.press('Enter')
}

for (const size of SIZES) {
  for (const theme of ['light', 'dark'] as const) {
    const tag = `${size.width}-${theme}`
    test(`no serious or critical axe findings on the main screens (${size.width}×${size.height}, ${theme})`, async ({
      page,
    }) => {
      h = await startServe({
        files: { 'a.txt': BEFORE, 'README.md': '# demo\n' },
        model: {
          turns: [
            { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
            { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: AFTER } }] },
            { toolCalls: [{ name: 'run_command', arguments: { command: 'touch made-it' } }] },
            { text: 'Done: line 61 changed and `made-it` created.' },
          ],
        },
      })
      // The user's mcp.json is read when the host starts: one server that runs, one that cannot.
      await h.stop()
      writeFileSync(
        join(h.dataDir, 'mcp.json'),
        JSON.stringify({
          mcpServers: {
            everything: { command: everything, args: [] },
            broken: { command: join(h.dataDir, 'no-such-server'), args: [] },
          },
        }),
      )
      await h.restart()
      const problems = watchProblems(page)
      await page.setViewportSize(size)
      await page.emulateMedia({ colorScheme: theme })
      await page.goto(h.url)

      const found: string[] = []
      const lesser: string[] = []
      const check = async (screen: string) => {
        // Let transitions and Monaco's first paint settle, so contrast is judged on the final colours.
        await page.waitForTimeout(300)
        await saveScreen(page, `a11y-${screen}-${tag}`)
        const all = await axeViolations(page)
        pushAll(found, describeViolations(screen, blocking(all)))
        pushAll(
          lesser,
          describeViolations(
            screen,
            all.filter((v) => !blocking([v]).length),
          ),
        )
      }

      // 1. An empty chat with its starter prompts.
      await expect(page.getByTestId('starter-prompts')).toBeVisible()
      await expect(page.getByTestId('chat-input')).toBeEnabled()
      await check('1-empty-chat')

      // 2. The command palette.
      await page.keyboard.press('Control+k')
      await expect(page.getByTestId('command-palette')).toBeVisible()
      await check('2-palette')
      await page.keyboard.press('Escape')

      // 3. Settings.
      await fromPalette(page, 'Settings')
      await expect(page.getByTestId('settings-dialog')).toBeVisible()
      await check('3-settings')
      await page.keyboard.press('Escape')

      // 4. The MCP view: a ready server with its tools open, a failed one.
      await fromPalette(page, 'MCP servers')
      const server = page.locator('[data-testid="mcp-server"][data-server="everything"]')
      await expect(server).toHaveAttribute('data-state', 'ready', { timeout: 30_000 })
      await expect(page.locator('[data-testid="mcp-server"][data-server="broken"]')).toHaveAttribute(
        'data-state',
        'failed',
        { timeout: 20_000 },
      )
      await server.getByTestId('mcp-tools-toggle').click()
      await check('4-mcp')
      await page.keyboard.press('Escape')

      // 5. A chat with its timeline and a file change waiting (Monaco's diff).
      await page.getByTestId('chat-input').fill('Change line 61, then touch a file')
      await page.getByTestId('send-button').click()
      const card = page.getByTestId('approval-panel')
      await expect(card.getByTestId('approval-kind')).toHaveText('modified', { timeout: 20_000 })
      await expect(
        card.locator('.editor.modified .view-line').filter({ hasText: 'CHANGED sixty-one' }),
      ).toBeVisible()
      await check('5-file-approval')

      // 6. A command waiting.
      await card.getByTestId('approve-button').click()
      await expect(card.getByTestId('approval-command')).toHaveText('touch made-it', { timeout: 20_000 })
      await check('6-command-approval')

      // 7. The finished turn: the timeline, its overview, a step's details.
      await card.getByTestId('approve-button').click()
      const steps = page.getByTestId('timeline-step')
      await expect(steps.filter({ hasText: 'made-it' }).last()).toBeVisible({ timeout: 20_000 })
      await expect(page.getByTestId('timeline-overview')).toBeVisible()
      await steps.filter({ hasText: 'run_command' }).first().click()
      await expect(page.getByTestId('step-details')).toBeVisible()
      await check('7-timeline-overview-details')

      // 8. The sessions list with two chats, one of them hovered (its Rename and Delete shown). Under
      // 1280 px the list steps aside while a panel is open: /new closes the details and shows it again.
      await page.getByTestId('chat-input').fill('/new')
      await page.getByTestId('chat-input').press('Enter')
      await expect(page.getByTestId('starter-prompts')).toBeVisible()
      await page.getByTestId('session-list-item').first().hover()
      await check('8-sessions')

      // 9. The model picker.
      await page.getByTestId('model-picker').click()
      await expect(page.getByTestId('model-picker-dialog')).toBeVisible()
      await check('9-model-picker')
      await page.keyboard.press('Escape')

      if (lesser.length) console.log(`moderate and minor axe findings (${tag}):\n${lesser.join('\n')}`)
      expect(found).toEqual([])
      expect(problems).toEqual([])
    })
  }
}
