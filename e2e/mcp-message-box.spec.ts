import { expect, test } from '@playwright/test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { saveScreen, watchProblems } from './screens'
import { repoRoot, startServe, type ServeHarness } from './serve-harness'

// The message box and the MCP servers, against the real `stepwise serve`, the fake model and a
// local stdio MCP server (test/fixtures/mcp/library-server.mjs), under the `ask` policy:
// - a server prompt is offered after `/` and run as a slash command: its text is the turn;
// - a resource is offered after `@`, and the mentioned one is read through the approval card
//   (its read-only hint shown) and attached to the message the model gets;
// - a tool with destructive, idempotent and open-world annotations says them on its card.
// At 1024×700 and 1440×900; each screen in test-results/screens/.

const library = join(repoRoot, 'test', 'fixtures', 'mcp', 'library-server.mjs')
const sizes = [
  { width: 1024, height: 700 },
  { width: 1440, height: 900 },
]

let h: ServeHarness | undefined

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

for (const size of sizes) {
  const at = `${size.width}x${size.height}`
  test(`prompts after /, resources after @, and the tool's hints on its card (${at})`, async ({ page }) => {
    test.setTimeout(120_000)
    h = await startServe({
      files: { 'a.txt': 'x\n' },
      model: {
        turns: [
          { text: 'Reviewed.' },
          { text: 'Wiping the shelf.', toolCalls: [{ name: 'mcp__lib__wipe', arguments: { shelf: 'top' } }] },
          { text: 'Wiped.' },
        ],
      },
    })
    await h.stop()
    writeFileSync(
      join(h.dataDir, 'mcp.json'),
      JSON.stringify({ mcpServers: { lib: { command: process.execPath, args: [library] } } }),
    )
    await h.restart()
    const problems = watchProblems(page)
    await page.setViewportSize(size)
    await page.goto(h.url)
    const box = page.getByTestId('chat-input')
    await expect(box).toBeEnabled()
    const chats = () => h!.model.requests.filter((r) => r.path === '/api/chat')
    const lastUser = () =>
      (chats().at(-1)?.body.messages as { role: string; content: string }[])
        .filter((m) => m.role === 'user')
        .at(-1)?.content

    // 1. `/` offers the server's prompt beside the built-ins, with its arguments and description.
    await box.click()
    await box.pressSequentially('/mcp')
    const slash = page.getByTestId('slash-list')
    const prompt = slash.getByRole('option', { name: /\/mcp__lib__review/ })
    await expect(prompt).toBeVisible({ timeout: 20_000 })
    await expect(prompt).toContainText('topic=… [tone=…]')
    await expect(prompt).toContainText('Asks for a review of one topic')
    // Beside the built-in /mcp (which opens the MCP view).
    await expect(slash.getByRole('option').first()).toContainText('/mcp')
    await saveScreen(page, `96-mcp-prompt-list-${at}`)
    await box.pressSequentially('__')
    await expect(slash.getByRole('option')).toHaveCount(1)
    // Enter on a prompt with a required argument completes it and says what to write.
    await page.keyboard.press('Enter')
    await expect(box).toHaveValue('/mcp__lib__review ')
    await expect(page.getByTestId('prompt-args-hint')).toContainText('topic=… (required) What to review')
    await box.pressSequentially('topic="the tests"')
    await saveScreen(page, `96-mcp-prompt-args-${at}`)
    await page.keyboard.press('Enter')
    const user = page.locator('[data-testid="timeline-step"][data-kind="user"]')
    await expect(user.first()).toContainText('PROMPT: review the tests.', { timeout: 20_000 })
    await expect(page.getByText('Reviewed.')).toBeVisible({ timeout: 20_000 })
    expect(lastUser()).toBe('PROMPT: review the tests.')

    // 2. `@` offers the server's resources beside the files; the mentioned one is read on approval.
    await box.click()
    await box.pressSequentially('Follow @lib:note')
    const mentions = page.getByTestId('mention-list')
    await expect(mentions.getByRole('option', { name: /@lib:note:\/\/shelf\/\{name\}/ })).toContainText(
      'MCP template',
    )
    const guide = mentions.getByRole('option', { name: /@lib:note:\/\/guide/ })
    await expect(guide).toContainText('Style guide: How the project writes code')
    await saveScreen(page, `96-mcp-resource-list-${at}`)
    await guide.click()
    await expect(box).toHaveValue('Follow @lib:note://guide ')
    await box.pressSequentially('and wipe the top shelf')
    await page.keyboard.press('Enter')
    const card = page.locator('[data-testid="approval-panel"][data-kind="mcp"]')
    await expect(card.getByTestId('approval-mcp-tool')).toHaveText('read_resource', { timeout: 20_000 })
    await expect(card.getByTestId('approval-mcp-args')).toContainText('"uri": "note://guide"')
    await expect(card.locator('[data-hint="readOnly"]')).toHaveText('only reads, changes nothing')
    await saveScreen(page, `96-mcp-resource-approval-${at}`)
    await card.getByTestId('approve-button').click()

    // 3. The destructive tool's card says its annotations in words.
    await expect(card.getByTestId('approval-mcp-tool')).toHaveText('wipe', { timeout: 20_000 })
    const hints = card.getByTestId('approval-mcp-hints')
    await expect(hints.locator('[data-hint="destructive"]')).toHaveText(
      'may delete or overwrite data (allowing the whole server does not cover it)',
    )
    await expect(hints.locator('[data-hint="destructive"]')).toHaveClass('warn')
    await expect(hints.locator('[data-hint="idempotent"]')).toHaveText(
      'not safe to repeat: each call may act again',
    )
    await expect(hints.locator('[data-hint="openWorld"]')).toHaveText(
      'reaches outside: the internet or other systems',
    )
    await expect(hints).toBeInViewport()
    await saveScreen(page, `96-mcp-hints-card-${at}`)
    // The model got the guide's text with the message (asked after the read, before the wipe).
    expect(chats()[1].body.messages.at(-1).content).toContain('[Resource @lib:note://guide]')
    expect(chats()[1].body.messages.at(-1).content).toContain('GUIDE: indent with two spaces.')
    await card.getByTestId('approve-button').click()
    await expect(page.getByText('Wiped.')).toBeVisible({ timeout: 20_000 })
    // The read is a step of its own on the timeline, under the message that asked for it.
    await expect(
      page.locator('[data-testid="timeline-step"][data-kind="tool"]').filter({ hasText: 'read_resource' }),
    ).toHaveCount(1)
    await saveScreen(page, `96-mcp-timeline-${at}`)
    expect(problems).toEqual([])
  })
}

// The elicitation card in the approvals' own header and buttons (Submit, Cancel, Decline), with
// no Y/N hint (the keys answer approvals, not a server's question); Enter in a field submits.
test('a server question on its card, with the approvals’ buttons (1024x700)', async ({ page }) => {
  test.setTimeout(90_000)
  h = await startServe({
    files: { 'a.txt': 'x\n' },
    approve: 'full-auto',
    model: {
      turns: [
        { text: 'Asking.', toolCalls: [{ name: 'mcp__asker__ask_name', arguments: {} }] },
        { text: 'Thanks, Ada.' },
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
  await page.setViewportSize({ width: 1024, height: 700 })
  await page.goto(h.url)
  await expect(page.getByTestId('chat-input')).toBeEnabled()
  await page.getByTestId('chat-input').fill('Ask me who I am')
  await page.getByTestId('send-button').click()
  const card = page.locator('[data-testid="mcp-elicitation"][data-server="asker"]')
  await expect(card).toBeVisible({ timeout: 30_000 })
  await expect(card.getByRole('heading')).toHaveText('The server asks')
  await expect(card).toContainText('MCP server asker')
  await expect(card.getByTestId('mcp-elicit-accept')).toHaveText('Submit')
  await expect(card.getByTestId('approval-keys')).toHaveCount(0)
  await saveScreen(page, '96-mcp-elicitation-card-1024x700')
  // Enter in a field submits the form, as the card's Submit does.
  await card.locator('[data-field="name"]').fill('Ada')
  await card.locator('[data-field="name"]').press('Enter')
  await expect(card).toHaveCount(0)
  await expect(page.getByText('Thanks, Ada.')).toBeVisible({ timeout: 20_000 })
  const chats = h.model.requests.filter((r) => r.path === '/api/chat')
  expect(JSON.parse(chats.at(-1)?.body.messages.at(-1).content).text).toBe(
    'answer: {"action":"accept","content":{"name":"Ada","team":4}}',
  )
  expect(problems).toEqual([])
})
