import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from '@playwright/test'

/*
 * The one owner of the e2e accessibility checks: axe-core's rules (WCAG 2.x A and AA and axe's
 * best practices), run in the page. axe is put in the page by evaluating its source through the
 * DevTools protocol: `page.addScriptTag` would add an inline script, which the app's own
 * Content-Security-Policy (`script-src 'self'`) rightly refuses, and the specs keep that policy on
 * so a violation of it still fails them.
 */

const require = createRequire(import.meta.url)
const AXE_SOURCE = readFileSync(require.resolve('axe-core'), 'utf8')

/** The rules about a control without an accessible name (a bare icon button, an unlabelled field). */
const NAME_RULES = [
  'button-name',
  'input-button-name',
  'label',
  'link-name',
  'select-name',
  'aria-input-field-name',
  'aria-toggle-field-name',
  'aria-command-name',
  'aria-meter-name',
  'aria-progressbar-name',
]

/** What `axe.run` found: in the page, as a string (the e2e TypeScript project has no DOM types). */
const run = (options: object) => `${AXE_SOURCE}
;axe.run(document, ${JSON.stringify(options)}).then((r) => r.violations.map((v) => ({
  id: v.id,
  impact: v.impact,
  help: v.help,
  nodes: v.nodes.map((n) => ({ target: n.target.join(' '), html: n.html.slice(0, 160), summary: n.failureSummary })),
})))`

/**
 * Evaluated in the page: the visible controls that have no accessible name, as the start of their
 * HTML (`[]` when every control has one). Kept as a string for the specs' `page.evaluate(…)`.
 */
export const UNNAMED_CONTROLS = `${run({ runOnly: { type: 'rule', values: NAME_RULES } })}.then((found) =>
  found.flatMap((v) => v.nodes.map((n) => n.html.slice(0, 120))))`

export interface Violation {
  id: string
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null
  help: string
  nodes: Array<{ target: string; html: string; summary: string }>
}

/** Every axe violation on the page as it is now. */
export async function axeViolations(page: Page): Promise<Violation[]> {
  return page.evaluate<Violation[]>(
    run({ resultTypes: ['violations'], runOnly: { type: 'tag', values: AXE_TAGS } }),
  )
}

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']

/** Only what keeps someone from using the app: axe's serious and critical findings. */
export function blocking(found: Violation[]): Violation[] {
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical')
}

/** One line per violation and node, for a failure message a person can act on. */
export function describeViolations(screen: string, found: Violation[]): string[] {
  return found.flatMap((v) =>
    v.nodes.map((n) => {
      // A contrast finding says its colours and ratio; the others their target and HTML.
      const why = v.id === 'color-contrast' ? ` — ${n.summary.split('\n').slice(1).join(' ')}` : ''
      return `${screen}: ${v.id} (${v.impact}) ${v.help} — ${n.target} — ${n.html}${why}`
    }),
  )
}
