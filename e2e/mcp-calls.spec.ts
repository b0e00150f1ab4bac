import { expect, test } from '@playwright/test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { UNNAMED_CONTROLS } from './a11y'
import { saveScreen, watchProblems } from './screens'
import { repoRoot, startServe, type ServeHarness } from './serve-harness'

// MCP tool calls in the session view, against the real `stepwise serve`, the fake model and the
// reference "everything" server (a server we did not write), under the `ask` policy: the approval
// card shows server, tool and arguments; approving runs the call for real; an image it returns is
// shown in the step's details; a rejection's reason reaches the model.

const everything = join(repoRoot, 'node_modules', '.bin', 'mcp-server-everything')
const MESSAGE = 'hello from the e2e <b>not bold</b>'

let h: ServeHarness | undefined

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

test('an MCP call asks with server, tool and arguments, runs once approved, and its image shows', async ({
  page,
}) => {
  test.setTimeout(90_000)
  h = await startServe({
    files: { 'a.txt': 'x\n' },
    model: {
      turns: [
        {
          text: 'Asking the server to echo.',
          toolCalls: [{ name: 'mcp__everything__echo', arguments: { message: MESSAGE } }],
        },
        { text: 'The server echoed it back.' },
        { toolCalls: [{ name: 'mcp__everything__get-tiny-image', arguments: {} }] },
        { text: 'There is the image.' },
        { toolCalls: [{ name: 'mcp__everything__echo', arguments: { message: 'once more' } }] },
        { text: 'Fine, no more echoes.' },
      ],
    },
  })
  // The user's mcp.json is read when the host starts.
  await h.stop()
  writeFileSync(
    join(h.dataDir, 'mcp.json'),
    JSON.stringify({ mcpServers: { everything: { command: everything, args: [] } } }),
  )
  await h.restart()
  const problems = watchProblems(page)
  await page.emulateMedia({ colorScheme: 'light' })
  await page.goto(h.url)
  await expect(page.getByTestId('chat-input')).toBeEnabled()
  const steps = page.getByTestId('timeline-step')
  const chats = () => h!.model.requests.filter((r) => r.path === '/api/chat')

  // 1. echo: the card names the server and the tool and shows the arguments as JSON, as text.
  await page.getByTestId('chat-input').fill('Echo something through MCP')
  await page.getByTestId('send-button').click()
  const card = page.locator('[data-testid="approval-panel"][data-kind="mcp"]')
  await expect(card).toBeVisible({ timeout: 30_000 })
  await expect(card.getByTestId('approval-mcp-server')).toHaveText('everything')
  await expect(card.getByTestId('approval-mcp-tool')).toHaveText('echo')
  await expect(card.getByTestId('approval-mcp-args')).toHaveText(
    JSON.stringify({ message: MESSAGE }, null, 2),
  )
  // Markup in the model's arguments stays text.
  await expect(card.locator('b')).toHaveCount(0)
  await expect(card.getByTestId('approval-mcp-description')).not.toBeEmpty()
  const echoRow = steps.filter({ hasText: 'everything · echo' })
  await expect(echoRow).toHaveAttribute('data-status', 'waiting')
  // Nothing ran yet: the model has not heard back.
  expect(chats()).toHaveLength(1)
  expect(await page.evaluate<string[]>(UNNAMED_CONTROLS)).toEqual([])
  await saveScreen(page, '90-mcp-approval-light')
  await page.emulateMedia({ colorScheme: 'dark' })
  await saveScreen(page, '91-mcp-approval-dark')

  // The same key as every approval: Y approves.
  await page.keyboard.press('y')
  await expect(card).toHaveCount(0)
  await expect(steps.filter({ hasText: 'The server echoed it back.' })).toBeVisible()
  await expect(echoRow).toHaveAttribute('data-status', 'ok')
  // The server really ran it: its answer went to the model.
  expect(JSON.stringify(chats()[1].body)).toContain('hello from the e2e')
  await echoRow.click()
  const details = page.getByTestId('step-details')
  await expect(details).toContainText('Echo: hello from the e2e')
  await expect(details.locator('h2')).toHaveText('Tool · everything · echo')
  await expect(details).toContainText('MCP server')
  await saveScreen(page, '92-mcp-echo-details-dark')

  // 2. get-tiny-image: approved with the button; the image shows in the step's details.
  await page.getByTestId('chat-input').fill('Show me the tiny image')
  await page.getByTestId('send-button').click()
  await expect(card.getByTestId('approval-mcp-tool')).toHaveText('get-tiny-image')
  await expect(card.getByTestId('approval-mcp-args')).toHaveText('{}')
  await card.getByTestId('approve-button').click()
  await expect(steps.filter({ hasText: 'There is the image.' })).toBeVisible()
  const imageRow = steps.filter({ hasText: 'everything · get-tiny-image' })
  await expect(imageRow).toHaveAttribute('data-status', 'ok')
  await expect(imageRow).toContainText('1 image')
  await imageRow.click()
  const image = details.getByTestId('step-image')
  await expect(image).toBeVisible()
  await expect(image).toHaveAttribute('src', /^data:image\/png;base64,iVBORw0KGgo/)
  await expect(image).toHaveAttribute('alt', /^Image returned by everything · get-tiny-image \(image\/png, /)
  // Decoded for real (a broken data: URL has no natural size): the server's logo is 20×20.
  await expect
    .poll(() =>
      image.evaluate((el) => {
        // The e2e config has no DOM types: the element is an <img>.
        const img = el as unknown as { naturalWidth: number; naturalHeight: number }
        return [img.naturalWidth, img.naturalHeight]
      }),
    )
    .toEqual([20, 20])
  await image.scrollIntoViewIfNeeded()
  await saveScreen(page, '93-mcp-image-details-dark')
  await page.emulateMedia({ colorScheme: 'light' })
  await saveScreen(page, '94-mcp-image-details-light')

  // 3. A rejection with a reason, as for other approvals: N, the reason, Enter.
  await page.getByTestId('chat-input').fill('Echo once more')
  await page.getByTestId('send-button').click()
  await expect(card.getByTestId('approval-mcp-args')).toContainText('once more')
  await page.keyboard.press('n')
  await page.getByTestId('reject-reason').fill('No more echoes today')
  await saveScreen(page, '95-mcp-reject-reason-light')
  await page.getByTestId('reject-reason').press('Enter')
  await expect(steps.filter({ hasText: 'Fine, no more echoes.' })).toBeVisible()
  await expect(steps.filter({ hasText: 'everything · echo' }).nth(1)).toHaveAttribute(
    'data-status',
    'rejected',
  )
  expect(JSON.stringify(chats()[5].body)).toContain('No more echoes today')
  expect(problems).toEqual([])
})
