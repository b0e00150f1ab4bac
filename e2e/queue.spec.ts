import { expect, test } from '@playwright/test'
import { saveScreen, watchProblems } from './screens'
import { startServe, type ServeHarness } from './serve-harness'

// A message sent while the agent works, in the real renderer against `stepwise serve`: the box
// stays usable, the message is shown as queued (editable, cancellable) and reaches the model at
// the agent's next step — here, once the waiting approval is answered.

let h: ServeHarness | undefined

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

for (const width of [1440, 1024]) {
  test(`a message queued during a turn is edited, then reaches the model at the next step (${width} px)`, async ({
    page,
  }) => {
    h = await startServe({
      files: { 'a.txt': 'one\n' },
      model: {
        turns: [
          { toolCalls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'b\n' } }] },
          { text: 'Made b.txt, with tabs as you asked.' },
        ],
      },
    })
    const problems = watchProblems(page)
    await page.setViewportSize({ width, height: width === 1440 ? 900 : 700 })
    await page.goto(h.url)
    const box = page.getByTestId('chat-input')
    await box.fill('Make b.txt')
    await box.press('Enter')
    await expect(page.getByTestId('approve-button')).toBeVisible({ timeout: 20_000 })

    // The agent waits on the approval; the box still takes a message, and Enter queues it.
    await box.click()
    await box.fill('use spaces')
    await expect(page.getByTestId('queue-button')).toBeVisible()
    await box.press('Enter')
    const queued = page.getByTestId('queued-messages')
    await expect(queued).toContainText('use spaces')
    await expect(box).toHaveValue('')
    await box.fill('drop this one')
    await box.press('Enter')
    await expect(page.getByTestId('queued-row')).toHaveCount(2)
    await saveScreen(page, `60-queued-messages-${width}`)

    // Edit the first, take back the second.
    const first = page.getByTestId('queued-row').first()
    await first.getByRole('button', { name: 'Edit' }).click()
    const edit = first.getByRole('textbox', { name: 'Edit the queued message' })
    await edit.fill('use tabs')
    await edit.press('Enter')
    await expect(first).toContainText('use tabs')
    await page.getByTestId('queued-row').nth(1).getByTestId('queued-cancel').click()
    await expect(page.getByTestId('queued-row')).toHaveCount(1)
    expect(h.model.requests.filter((r) => r.path === '/api/chat')).toHaveLength(1)

    await page.getByTestId('approve-button').click()
    await expect(
      page.getByTestId('timeline-step').filter({ hasText: 'with tabs as you asked' }),
    ).toBeVisible()
    await expect(queued).toHaveCount(0)
    const second = h.model.requests.filter((r) => r.path === '/api/chat')[1].body
    const users = (second.messages as Array<{ role: string; content: string }>).filter(
      (m) => m.role === 'user',
    )
    expect(users.map((m) => m.content)).toEqual(['Make b.txt', 'use tabs'])
    await expect(page.getByTestId('timeline-step').filter({ hasText: 'use tabs' })).toContainText(
      'sent while the agent worked',
    )
    await saveScreen(page, `61-queued-delivered-${width}`)
    expect(problems).toEqual([])
  })
}
