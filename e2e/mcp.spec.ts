import { expect, test, type Page } from '@playwright/test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { UNNAMED_CONTROLS } from './a11y'
import { saveScreen, watchProblems } from './screens'
import { repoRoot, startServe, type ServeHarness } from './serve-harness'

// The MCP view against the real `stepwise serve` and the reference "everything" server (a server
// we did not write), configured as users do: the data folder's mcp.json, a project's .mcp.json.

const everything = join(repoRoot, 'node_modules', '.bin', 'mcp-server-everything')
const config = (name: string, more: object = {}) =>
  JSON.stringify({ mcpServers: { [name]: { command: everything, args: [] }, ...more } })

let h: ServeHarness | undefined

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

async function openFromPalette(page: Page): Promise<void> {
  await expect(page.getByTestId('chat-input')).toBeEnabled()
  await page.keyboard.press('Control+k')
  await page.keyboard.type('MCP servers')
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('mcp-dialog')).toBeVisible()
}

const card = (page: Page, name: string) => page.locator(`[data-testid="mcp-server"][data-server="${name}"]`)

test('the MCP view opens from the palette and from settings, and says how to add a server', async ({
  page,
}) => {
  h = await startServe({ files: { 'a.txt': 'x\n' } })
  const problems = watchProblems(page)
  await page.goto(h.url)
  await openFromPalette(page)
  await expect(page.getByTestId('mcp-empty')).toContainText('No MCP servers are configured.')
  await saveScreen(page, '60-mcp-empty')
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('mcp-dialog')).toHaveCount(0)

  await page.keyboard.press('Control+k')
  await page.keyboard.type('Settings')
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('settings-mcp-summary')).toHaveText('No MCP servers configured.')
  await page.getByTestId('settings-open-mcp').click()
  await expect(page.getByTestId('settings-dialog')).toHaveCount(0)
  await expect(page.getByTestId('mcp-empty')).toBeVisible()
  expect(problems).toEqual([])
})

test('a configured server is listed ready with its tools; a tool switched off stays off', async ({
  page,
}) => {
  h = await startServe({ files: { 'a.txt': 'x\n' } })
  // The user's mcp.json is read when the host starts.
  await h.stop()
  writeFileSync(
    join(h.dataDir, 'mcp.json'),
    config('everything', { broken: { command: join(h.dataDir, 'no-such-server'), args: ['--stdio'] } }),
  )
  await h.restart()
  const problems = watchProblems(page)
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.goto(h.url)
  // The open project's servers start in the background, before any chat.
  await openFromPalette(page)
  const server = card(page, 'everything')
  await expect(server).toHaveAttribute('data-state', 'ready', { timeout: 20_000 })
  await expect(server.getByTestId('mcp-state')).toHaveText('ready')
  await expect(server.getByTestId('mcp-target')).toContainText('mcp-server-everything')
  // Its 13 tools are folded under their count.
  await expect(server.getByTestId('mcp-tools-toggle')).toHaveText(/^\d+ tools$/)
  await server.getByTestId('mcp-tools-toggle').click()
  const echo = server.locator('[data-testid="mcp-tool"][data-tool="echo"]')
  await expect(echo).toBeVisible()
  await expect(echo.getByTestId('mcp-tool-description')).not.toBeEmpty()
  // A server that cannot start says so, naming what it ran.
  const broken = card(page, 'broken')
  await expect(broken).toHaveAttribute('data-state', 'failed', { timeout: 20_000 })
  await expect(broken.getByTestId('mcp-error')).toContainText('no-such-server')
  expect(await page.evaluate<string[]>(UNNAMED_CONTROLS)).toEqual([])
  await saveScreen(page, '61-mcp-ready-dark')
  await broken.scrollIntoViewIfNeeded()
  await saveScreen(page, '61b-mcp-failed-dark')
  await echo.scrollIntoViewIfNeeded()

  const toggle = page.getByRole('switch', { name: 'Enable tool echo of everything' })
  await expect(toggle).toHaveAttribute('aria-checked', 'true')
  await toggle.focus()
  await page.keyboard.press('Space')
  await expect(toggle).toHaveAttribute('aria-checked', 'false')
  await expect(echo).toHaveAttribute('data-enabled', 'false')

  await server.getByTestId('mcp-log-toggle').click()
  // The server's own stderr, from its log file.
  await expect(server.getByTestId('mcp-log')).toContainText('Starting default (STDIO) server')

  await page.getByRole('button', { name: 'Restart everything' }).click()
  await expect(server).toHaveAttribute('data-state', 'ready', { timeout: 20_000 })
  await expect(page.getByRole('button', { name: 'Restart everything' })).toBeEnabled()
  // A second start in its log: it really ran again.
  await server.getByRole('button', { name: 'Refresh log' }).click()
  await expect(server.getByTestId('mcp-log')).toHaveText(/Starting default[\s\S]*Starting default/)

  // Stored, not only shown: the host answers the same after the dialog is reopened.
  await page.keyboard.press('Escape')
  await openFromPalette(page)
  await expect(server.getByTestId('mcp-tools-toggle')).toHaveText(/^\d+ tools, 1 off$/)
  await server.getByTestId('mcp-tools-toggle').click()
  await expect(page.getByRole('switch', { name: 'Enable tool echo of everything' })).toHaveAttribute(
    'aria-checked',
    'false',
  )
  await page.emulateMedia({ colorScheme: 'light' })
  await saveScreen(page, '62-mcp-ready-light')
  expect(problems).toEqual([])
})

test("a project's .mcp.json waits for approval, names its command, and starts once approved", async ({
  page,
}) => {
  h = await startServe({ files: { 'a.txt': 'x\n', '.mcp.json': config('proj-tools') } })
  const problems = watchProblems(page)
  await page.emulateMedia({ colorScheme: 'light' })
  await page.goto(h.url)
  const toast = page.getByRole('status').filter({ hasText: '.mcp.json wants to start a server (proj-tools)' })
  await expect(toast).toBeVisible()
  await saveScreen(page, '63-mcp-project-toast')
  await toast.getByTestId('toast-action').click()

  const prompt = page.getByTestId('mcp-project-approval')
  await expect(prompt).toContainText("This project's .mcp.json would start 1 MCP server:")
  await expect(prompt).toContainText('mcp-server-everything')
  await expect(card(page, 'proj-tools')).toHaveAttribute('data-state', 'awaiting-approval')
  await saveScreen(page, '64-mcp-project-approval-light')
  await page.emulateMedia({ colorScheme: 'dark' })
  await saveScreen(page, '65-mcp-project-approval-dark')

  await page.getByTestId('mcp-project-reject').click()
  await expect(page.getByTestId('mcp-project-state')).toHaveAttribute('data-state', 'rejected')
  await expect(card(page, 'proj-tools')).toHaveAttribute('data-state', 'awaiting-approval')

  await page.getByRole('button', { name: 'Approve it now' }).click()
  await expect(page.getByTestId('mcp-project-state')).toHaveAttribute('data-state', 'approved')
  await expect(card(page, 'proj-tools')).toHaveAttribute('data-state', 'ready', { timeout: 20_000 })
  await card(page, 'proj-tools').getByTestId('mcp-tools-toggle').click()
  await expect(card(page, 'proj-tools').locator('[data-testid="mcp-tool"][data-tool="echo"]')).toBeVisible()
  await saveScreen(page, '66-mcp-project-approved')
  expect(problems).toEqual([])
})
