import { expect, test, type Page } from '@playwright/test'
import { maxOf } from '../src/shared/arrays'
import { saveScreen, watchProblems } from './screens'
import { startServe, type ServeHarness } from './serve-harness'

// The smaller points of the layout, against the real `stepwise serve`, a real git project and the
// fake model server: the meter and Until green say what they do on screen, in the app's words; a
// half-typed message stays with its chat; the overview's idle label keeps clear of the axis, and in
// the dark theme an approval wait is calm with a readable name on it.

let h: ServeHarness | undefined

test.setTimeout(120_000)

test.afterEach(async () => {
  await h?.close()
  h = undefined
})

const SIZES = [
  { width: 1024, height: 700, theme: 'light' },
  { width: 1440, height: 900, theme: 'dark' },
] as const

/** No element of the page explains itself with a command-line flag (`--num-ctx`). */
async function expectNoFlags(page: Page): Promise<void> {
  const flagged = await page.evaluate<string[]>(
    `[...document.querySelectorAll('[title], [aria-label]')].map((el) => (el.getAttribute('title') || '') + ' ' + (el.getAttribute('aria-label') || '')).filter((t) => /(^|\\s)--[a-z]/.test(t))`,
  )
  expect(flagged).toEqual([])
}

for (const size of SIZES) {
  test(`the meter and Until green explain themselves on screen (${size.width}×${size.height}, ${size.theme})`, async ({
    page,
  }) => {
    const problems = watchProblems(page)
    await page.setViewportSize(size)
    await page.emulateMedia({ colorScheme: size.theme })
    // A compatible server that does not say its window: the meter's hardest case.
    h = await startServe({ files: { 'a.txt': 'x\n' }, compatible: { model: 'my-alias' } })
    await page.goto(h.url)
    const meter = page.getByTestId('context-meter')
    await expect(meter).toHaveAttribute('data-window', 'unknown')
    await expect(page.getByTestId('meter-says')).toHaveCount(0)
    await page.getByTestId('meter-help').click()
    const says = page.getByTestId('meter-says')
    await expect(says).toBeVisible()
    await expect(page.getByTestId('meter-help')).toHaveAttribute('aria-expanded', 'true')
    await expect(says).toContainText('what the model can read at once')
    await expect(says).toContainText('Set it in the model picker')
    await expect(says).not.toContainText('--')
    // Inside the window, above the status bar.
    const box = (await says.boundingBox())!
    const bar = (await page.getByTestId('status-bar').boundingBox())!
    expect(box.x).toBeGreaterThanOrEqual(0)
    expect(box.x + box.width).toBeLessThanOrEqual(size.width)
    expect(box.y + box.height).toBeLessThanOrEqual(bar.y)
    await expectNoFlags(page)
    await saveScreen(page, `smaller-meter-${size.width}-${size.theme}`)
    await page.getByTestId('meter-help').click()
    await expect(says).toHaveCount(0)

    await page.getByTestId('until-green').click()
    await expect(page.getByTestId('until-green-says')).toBeVisible()
    await expect(page.getByTestId('until-green-says')).toContainText("the project's build and tests run")
    await expect(page.getByTestId('until-green-says')).not.toContainText('--')
    await saveScreen(page, `smaller-until-green-${size.width}-${size.theme}`)
    expect(problems).toEqual([])
  })
}

test('a half-typed message stays with its chat and never carries into a new one', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 700 })
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
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'First answer.' })).toBeVisible({
    timeout: 20_000,
  })

  // Half a thought in the first chat; New chat starts empty (from the list and from the palette).
  await box.fill('half a thought')
  await page.getByRole('button', { name: 'New chat' }).click()
  await expect(page.getByTestId('starter-prompts')).toBeVisible()
  await expect(box).toHaveValue('')
  await box.fill('Second chat')
  await box.press('Enter')
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Second answer.' })).toBeVisible({
    timeout: 20_000,
  })
  await box.fill('another half')
  await page.keyboard.press('Control+k')
  await page.keyboard.type('New chat')
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('starter-prompts')).toBeVisible()
  await expect(box).toHaveValue('')

  // Back in each chat, its own half-typed text is there again.
  await items.filter({ hasText: 'First chat' }).click()
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'First answer.' })).toBeVisible({
    timeout: 20_000,
  })
  await expect(box).toHaveValue('half a thought')
  await items.filter({ hasText: 'Second chat' }).click()
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Second answer.' })).toBeVisible({
    timeout: 20_000,
  })
  await expect(box).toHaveValue('another half')
  expect(problems).toEqual([])
})

/** Records what the overview's canvas draws: text with its place and colour, and filled rectangles. */
const RECORD_DRAWS = `
  window.__draws = []
  const proto = CanvasRenderingContext2D.prototype
  const fillText = proto.fillText
  proto.fillText = function (text, x, y, ...rest) {
    if (window.__draws.length < 20000) window.__draws.push({ op: 'text', text, x, y, style: this.fillStyle })
    return fillText.call(this, text, x, y, ...rest)
  }
  const fillRect = proto.fillRect
  proto.fillRect = function (x, y, w, h) {
    if (window.__draws.length < 20000) window.__draws.push({ op: 'rect', x, y, w, h, style: this.fillStyle })
    return fillRect.call(this, x, y, w, h)
  }
`

interface Draw {
  op: 'text' | 'rect'
  text?: string
  x: number
  y: number
  w?: number
  h?: number
  style: string
}

/** sRGB channels of '#rrggbb' or 'rgb(r, g, b)'. */
function rgb(color: string): [number, number, number] {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color)
  if (hex) return [1, 2, 3].map((i) => parseInt(hex[i], 16)) as [number, number, number]
  const m = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(color)
  if (!m) throw new Error(`not a colour: ${color}`)
  return [Number(m[1]), Number(m[2]), Number(m[3])]
}

/** WCAG 2 contrast ratio of two colours. */
function contrast(a: string, b: string): number {
  const lum = (c: string) => {
    const [r, g, bl] = rgb(c).map((v) => {
      const s = v / 255
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
    })
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl
  }
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x)
  return (hi + 0.05) / (lo + 0.05)
}

test('the overview: the idle label clear of the axis; in the dark theme a calm wait with a readable name', async ({
  page,
}) => {
  await page.addInitScript(RECORD_DRAWS)
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.emulateMedia({ colorScheme: 'dark' })
  h = await startServe({
    files: { 'a.txt': 'x\n' },
    model: {
      turns: [
        { toolCalls: [{ name: 'run_command', arguments: { command: 'touch made-it' } }] },
        { text: 'Done.' },
        { text: 'Again.' },
      ],
    },
  })
  const problems = watchProblems(page)
  await page.goto(h.url)
  const box = page.getByTestId('chat-input')
  await box.fill('Touch a file')
  await box.press('Enter')
  await expect(page.getByTestId('approval-command')).toHaveText('touch made-it', { timeout: 20_000 })
  // A wait long enough for its bar to carry the command's name.
  await page.waitForTimeout(3000)
  await page.getByTestId('approve-button').click()
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Done.' })).toBeVisible({
    timeout: 20_000,
  })
  // The axis folds a pause of 30 s or more and labels it "idle".
  await page.waitForTimeout(31_000)
  await box.fill('Once more')
  await box.press('Enter')
  await expect(page.getByTestId('timeline-step').filter({ hasText: 'Again.' })).toBeVisible({
    timeout: 20_000,
  })
  // A redraw of the whole session, recorded: zoom in, then fit.
  await page.getByRole('button', { name: 'Zoom in (+)' }).click()
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))')
  await page.evaluate('window.__draws = []')
  await page.getByRole('button', { name: 'Fit the whole session (0)' }).click()
  await expect.poll(() => page.evaluate<number>('window.__draws.length')).toBeGreaterThan(10)
  await saveScreen(page, 'smaller-overview-dark')
  await page
    .getByTestId('timeline-overview')
    .screenshot({ path: 'test-results/screens/smaller-overview-dark-chart.png' })
  const draws = await page.evaluate<Draw[]>('window.__draws')
  const palette = await page.evaluate<Record<string, string>>(
    `Object.fromEntries([...document.querySelectorAll('[data-c]')].map((el) => [el.dataset.c, getComputedStyle(el).color]))`,
  )

  // The idle label sits in its band, a line below the axis's labels.
  const texts = draws.filter((d) => d.op === 'text')
  const idle = texts.filter((d) => d.text!.startsWith('idle '))
  expect(idle.length).toBeGreaterThan(0)
  const axis = texts.filter((d) => /^\d/.test(d.text!))
  expect(axis.length).toBeGreaterThan(0)
  const axisBottom = maxOf(axis.map((d) => d.y))
  for (const label of idle) expect(label.y - axisBottom).toBeGreaterThanOrEqual(10)

  // The wait is calm on the dark card (not a glaring amber) and the name on it reads (WCAG AA).
  // (A fill with transparency, such as the gap band's, is not a wait.)
  const opaque = (c: string) => /^#[0-9a-f]{6}$/i.test(c) || /^rgb\(/.test(c)
  const waits = draws.filter(
    (d) => d.op === 'rect' && opaque(d.style) && contrast(d.style, palette.wait) < 1.01,
  )
  expect(waits.length).toBeGreaterThan(0)
  expect(contrast(palette.wait, palette.bg)).toBeLessThanOrEqual(3)
  const onWait = texts.filter((t) =>
    // A name starts at its bar's left edge, before the wait within it: it reads over the wait
    // when its run (~6 px a character) reaches into it.
    waits.some((w) => t.x < w.x + w.w! && t.x + 6 * t.text!.length > w.x && t.y >= w.y && t.y <= w.y + w.h!),
  )
  expect(onWait.length).toBeGreaterThan(0)
  for (const t of onWait) expect(contrast(t.style, palette.wait)).toBeGreaterThanOrEqual(4.5)
  expect(problems).toEqual([])
})
