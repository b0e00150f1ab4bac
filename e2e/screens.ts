import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import { repoRoot } from './serve-harness'

/** Where every screen of the app is saved on each run, to be looked at (test-results/screens). */
export const SCREENS_DIR = join(repoRoot, 'test-results', 'screens')

export async function saveScreen(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENS_DIR, { recursive: true })
  await page.screenshot({ path: join(SCREENS_DIR, `${name}.png`) })
}

/** Fails the test on any console error or uncaught page error (CSP violations included). */
export function watchProblems(page: Page): string[] {
  const problems: string[] = []
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`)
  })
  page.on('pageerror', (e) => problems.push(`page: ${e.message}`))
  return problems
}
