import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test } from '@playwright/test'
import { serveStatic, type StaticServer } from './static-server'

const repoRoot = fileURLToPath(new URL('..', import.meta.url))
const rendererDir = join(repoRoot, 'out', 'renderer')
const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }

let server: StaticServer

test.beforeAll(async () => {
  if (!existsSync(join(rendererDir, 'index.html'))) {
    throw new Error('out/renderer is missing: run `npm run build` first (npm test does).')
  }
  server = await serveStatic(rendererDir)
})

test.afterAll(async () => {
  await server?.close()
})

for (const colorScheme of ['light', 'dark'] as const) {
  test(`the placeholder window renders (${colorScheme})`, async ({ page }, testInfo) => {
    const problems: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`)
    })
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`))
    await page.emulateMedia({ colorScheme })

    await page.goto(server.url)

    const root = page.getByTestId('app-root')
    await expect(root).toBeVisible()
    await expect(root.getByRole('heading', { level: 1 })).toHaveText('Stepwise')
    await expect(page.getByTestId('app-version')).toHaveText(`version ${version}`)
    await expect(root).toContainText('stepwise edit "')
    await expect(page).toHaveTitle('Stepwise')

    await page.screenshot({ path: testInfo.outputPath(`placeholder-${colorScheme}.png`) })
    expect(problems).toEqual([])
  })
}
