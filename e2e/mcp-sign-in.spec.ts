import { expect, test } from '@playwright/test'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startOAuthServer, type OAuthTestServer } from '../test/fixtures/mcp/oauth-server'
import { watchProblems } from './screens'
import { repoRoot, startServe, type ServeHarness } from './serve-harness'

// Signing in to an OAuth-protected MCP server from the app (`stepwise serve` in Chromium): the
// server's row says "needs sign-in", "Sign in" gives the sign-in page (the system browser is off
// here, STEPWISE_BROWSER=none, so the page's link is what the user follows), the authorization
// server approves and redirects to Stepwise's loopback, and the server comes up with its tools.

let h: ServeHarness | undefined
let oauth: OAuthTestServer | undefined

test.afterEach(async () => {
  await h?.close()
  await oauth?.close()
  h = undefined
  oauth = undefined
})

test('signs in to an OAuth MCP server from its row, then signs out', async ({ page, context }) => {
  process.env.STEPWISE_BROWSER = 'none'
  oauth = await startOAuthServer()
  h = await startServe({ files: { 'a.txt': 'x\n' } })
  await h.stop()
  writeFileSync(join(h.dataDir, 'mcp.json'), JSON.stringify({ mcpServers: { notes: { url: oauth.url } } }))
  await h.restart()
  const problems = watchProblems(page)
  await page.goto(h.url)
  await expect(page.getByTestId('chat-input')).toBeEnabled()
  await page.keyboard.press('Control+k')
  await page.keyboard.type('MCP servers')
  await page.keyboard.press('Enter')
  const row = page.locator('[data-testid="mcp-server"][data-server="notes"]')
  await expect(row).toHaveAttribute('data-state', 'needs-sign-in', { timeout: 20_000 })
  await expect(row.getByTestId('mcp-error')).toContainText('needs sign-in')
  await expect(row.getByTestId('mcp-error')).toContainText('stepwise mcp login notes')

  await row.getByTestId('mcp-error').getByTestId('mcp-sign-in').click()
  const link = row.getByTestId('mcp-signin-link')
  await expect(link).toBeVisible()
  const [signInPage] = await Promise.all([context.waitForEvent('page'), link.click()])
  // The authorization server approves at once and sends the browser to the loopback callback.
  await expect(signInPage.locator('h1')).toHaveText('Signed in', { timeout: 15_000 })
  expect(new URL(signInPage.url()).hostname).toBe('127.0.0.1')

  await expect(row).toHaveAttribute('data-state', 'ready', { timeout: 15_000 })
  await expect(row.getByTestId('mcp-signin-link')).toHaveCount(0)
  await expect(row.getByTestId('mcp-tools-toggle')).toHaveText('1 tool')
  await expect(row.getByTestId('mcp-sign-out')).toBeVisible()
  const stored = join(h.dataDir, 'mcp-oauth.json')
  expect(statSync(stored).mode & 0o777).toBe(0o600)
  expect(Object.keys(JSON.parse(readFileSync(stored, 'utf8')).servers.notes)).toContain('tokens')
  // RFC 8707 and PKCE on the request the browser carried.
  expect(oauth.authorizations[0].get('resource')).toBe(oauth.url)
  expect(oauth.authorizations[0].get('code_challenge_method')).toBe('S256')

  await row.getByTestId('mcp-sign-out').click()
  await expect(row.getByTestId('mcp-sign-in')).toBeVisible()
  expect(JSON.parse(readFileSync(stored, 'utf8')).servers).toEqual({})
  expect(problems).toEqual([])
})

// A server's question mid-call (elicitation), in `full-auto`: it is the user's to answer, so the
// card appears anyway; the form carries the schema's default, and the answer reaches the server.
test('a server question is answered on its card, even in full-auto', async ({ page }) => {
  test.setTimeout(90_000)
  h = await startServe({
    files: { 'a.txt': 'x\n' },
    approve: 'full-auto',
    model: {
      turns: [
        { text: 'Asking.', toolCalls: [{ name: 'mcp__asker__ask_name', arguments: {} }] },
        { text: 'Thanks.' },
      ],
    },
  })
  await h.stop()
  const fixture = join(repoRoot, 'test', 'fixtures', 'mcp', 'elicit-server.mjs')
  writeFileSync(
    join(h.dataDir, 'mcp.json'),
    JSON.stringify({ mcpServers: { asker: { command: process.execPath, args: [fixture] } } }),
  )
  await h.restart()
  const problems = watchProblems(page)
  await page.goto(h.url)
  await expect(page.getByTestId('chat-input')).toBeEnabled()
  await page.getByTestId('chat-input').fill('Ask me who I am')
  await page.getByTestId('send-button').click()
  const card = page.locator('[data-testid="mcp-elicitation"][data-server="asker"]')
  await expect(card).toBeVisible({ timeout: 30_000 })
  await expect(card).toContainText('Who is asking?')
  await expect(card.locator('[data-field="team"]')).toHaveValue('4')
  // Submitting without the required name says so and keeps the card.
  await card.getByTestId('mcp-elicit-accept').click()
  await expect(card.getByTestId('mcp-elicit-error')).toContainText('Name: an answer is needed')
  await card.locator('[data-field="name"]').fill('Ada')
  await card.getByTestId('mcp-elicit-accept').click()
  await expect(card).toHaveCount(0)
  await expect(page.getByText('Thanks.')).toBeVisible({ timeout: 20_000 })
  const chats = h.model.requests.filter((r) => r.path === '/api/chat')
  const toolMessage = chats.at(-1)?.body.messages.at(-1)
  expect(toolMessage.role).toBe('tool')
  // The server got the name typed and the team size left at its default.
  expect(JSON.parse(toolMessage.content).text).toBe(
    'answer: {"action":"accept","content":{"name":"Ada","team":4}}',
  )
  expect(problems).toEqual([])
})
