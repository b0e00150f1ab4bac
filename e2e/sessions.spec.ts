import { expect, test } from '@playwright/test'
import { saveScreen, watchProblems } from './screens'
import { startServe, type ServeHarness } from './serve-harness'

// The session list against the real `stepwise serve`: rename a chat, delete one (asked first),
// take the deletion back from the toast, and delete for real.

let h: ServeHarness | undefined

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

test('rename a chat, delete one with confirmation and an undo toast', async ({ page }) => {
  h = await startServe({
    files: { 'a.txt': 'x\n' },
    model: { turns: [{ text: 'First answer.' }, { text: 'Second answer.' }] },
  })
  const problems = watchProblems(page)
  await page.goto(h.url)
  const box = page.getByTestId('chat-input')
  const items = page.getByTestId('session-list-item')
  await box.fill('First chat')
  await box.press('Enter')
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'First answer.' })).toBeVisible()
  await box.fill('/new')
  await box.press('Enter')
  await expect(page.getByTestId('timeline-step')).toHaveCount(0)
  await box.fill('Second chat')
  await box.press('Enter')
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Second answer.' })).toBeVisible()
  await expect(items).toHaveCount(2)

  // Rename with F2: Enter saves.
  const first = items.filter({ hasText: 'First chat' })
  await first.focus()
  await first.press('F2')
  const field = page.getByTestId('session-rename-input')
  await field.fill('Renamed chat')
  await field.press('Enter')
  await expect(items.filter({ hasText: 'Renamed chat' })).toHaveCount(1)

  // Delete the open one: asked first; Cancel keeps it.
  const second = items.filter({ hasText: 'Second chat' })
  await second.hover()
  await page.getByRole('button', { name: 'Delete Second chat' }).click()
  const dialog = page.getByTestId('confirm-dialog')
  await expect(dialog).toContainText('Delete this chat?')
  await saveScreen(page, '44-session-delete-confirm')
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await expect(items).toHaveCount(2)

  await second.hover()
  await page.getByRole('button', { name: 'Delete Second chat' }).click()
  await page.getByTestId('confirm-ok').click()
  await expect(items).toHaveCount(1)
  await expect(page.getByTestId('timeline-step')).toHaveCount(0) // the open chat closed
  const undo = page.getByTestId('toast-action')
  await expect(undo).toHaveText('Undo')
  await saveScreen(page, '45-session-deleted-toast')
  await undo.click()
  await expect(items.filter({ hasText: 'Second chat' })).toHaveCount(1)

  // Deleted for good (Del key): still gone after a restart.
  await items.filter({ hasText: 'Second chat' }).press('Delete')
  await page.getByTestId('confirm-ok').click()
  await expect(items).toHaveCount(1)
  await page.goto('about:blank')
  await h.stop()
  await h.restart()
  await page.goto(h.url)
  await expect(items).toHaveCount(1)
  await expect(items).toContainText('Renamed chat')
  expect(problems).toEqual([])
})
