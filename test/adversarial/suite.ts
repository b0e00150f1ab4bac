import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildCli, ROOT } from '../cli-harness'
import { advisoryCases } from './cases-advisories'
import { argumentInjectionCases } from './cases-advisories-tools'
import { advisoryHostCases, SOLO_ADVISORY_CASES } from './cases-advisories-host'
import { confinementCases } from './cases-confinement'
import { denyThroughCases } from './cases-deny-through'
import { gitCases, SOLO_GIT_CASES } from './cases-git'
import { programCases } from './cases-programs'
import { round2ExecCases, SOLO_ROUND2_EXEC } from './cases-round2-exec'
import { secretCases } from './cases-secrets'
import { runSession, type CaseResult, type SessionInfo } from './harness'
import { CLASSES, type AdversarialCase, type CaseClass, type Policy } from './types'
import { pushAll } from '../../src/shared/arrays'

/*
 * The adversarial suite: every class under `auto-edit` and `full-auto`, one CLI
 * session per class and policy (cases back to back), plus a session of its own
 * for a case that would spoil the others. A table per class goes to stdout and
 * test-results/adversarial.md at the end.
 */

export const ALL_CASES: AdversarialCase[] = [
  ...confinementCases,
  ...gitCases,
  ...programCases,
  ...secretCases,
  ...advisoryCases,
  ...argumentInjectionCases,
  ...advisoryHostCases,
  ...denyThroughCases,
  ...round2ExecCases,
]
const SOLO = new Set([...SOLO_GIT_CASES, ...SOLO_ADVISORY_CASES, ...SOLO_ROUND2_EXEC])
const POLICIES: Policy[] = ['auto-edit', 'full-auto']

function sessionsOf(cls: CaseClass): AdversarialCase[][] {
  const cases = ALL_CASES.filter((c) => c.cls === cls)
  const shared = cases.filter((c) => !SOLO.has(c.id))
  const solo = cases.filter((c) => SOLO.has(c.id)).map((c) => [c])
  return [shared, ...solo].filter((s) => s.length > 0)
}

function report(name: string, results: CaseResult[], infos: SessionInfo[]): string {
  const who = typeof process.getuid === 'function' ? `uid ${process.getuid()}` : 'this user'
  const lines = [
    `# Adversarial suite: ${name} (${who})`,
    '',
    '| class | policy | cases | held | broke |',
    '|---|---|---|---|---|',
  ]
  for (const cls of Object.keys(CLASSES).map(Number) as CaseClass[])
    for (const policy of POLICIES) {
      const mine = results.filter((r) => r.cls === cls && r.policy === policy)
      if (mine.length === 0) continue
      const held = mine.filter((r) => r.held).length
      lines.push(`| ${cls}. ${CLASSES[cls]} | ${policy} | ${mine.length} | ${held} | ${mine.length - held} |`)
    }
  const broken = results.filter((r) => !r.held)
  lines.push('', broken.length ? '## Broken cases' : 'Every case held.', '')
  for (const r of broken) {
    lines.push(`- **${r.id}** (${r.policy}): ${r.title} — ${r.broke.join('; ')}`, `  source: ${r.source}`)
    for (const o of r.outcomes) lines.push(`  - ${o}`)
  }
  if (process.env.STEPWISE_ADVERSARIAL_VERBOSE) {
    lines.push('', '## Every case', '')
    for (const r of results.filter((x) => x.held)) {
      lines.push(`- ${r.id} (${r.policy}): held`)
      for (const o of r.outcomes) lines.push(`  - ${o}`)
    }
  }
  const strays = [...new Set(infos.flatMap((i) => i.strays))]
  if (strays.length) lines.push('', `Secrets seen somewhere in the CLI's output: ${strays.join(', ')}`)
  const runDirs = [...new Set(infos.map((i) => i.runSockDir.replace(/stepwise-adv-.*$/, '')))]
  lines.push('', `/run sockets were created in: ${runDirs.join(', ')}`)
  return lines.join('\n') + '\n'
}

/**
 * The suite for `classes`, as one Vitest file named `name`: its table goes to
 * stdout and `test-results/adversarial-<name>.md`, and `adversarial.md` is
 * rebuilt from every such file present.
 */
export function defineAdversarialSuite(
  name: string,
  classes: CaseClass[],
  /**
   * Cases that must break with the sandbox off, and how each must be seen to break (found in
   * `extra` too: cases of the control alone); `unsandboxed`: cases that must hold even so (the
   * command policy alone refuses them).
   */
  control: { ids: string[]; why: RegExp[]; unsandboxed?: string[]; extra?: AdversarialCase[] },
): void {
  let cli = ''
  const results: CaseResult[] = []
  const infos: SessionInfo[] = []

  beforeAll(() => {
    // A prebuilt CLI (STEPWISE_ADVERSARIAL_CLI) lets an unprivileged user run the suite on a read-only checkout.
    cli = process.env.STEPWISE_ADVERSARIAL_CLI || buildCli(`stepwise-adversarial-${name}`)
  }, 180_000)

  afterAll(() => {
    if (results.length === 0) return
    const text = report(name, results, infos)
    process.stdout.write(`\n${text}`)
    const dir = process.env.STEPWISE_ADVERSARIAL_REPORT_DIR || path.join(ROOT, 'test-results')
    try {
      fs.mkdirSync(dir, { recursive: true })
      fs.writeFileSync(path.join(dir, `adversarial-${name}.md`), text)
      const parts = fs
        .readdirSync(dir)
        .filter((f) => /^adversarial-[\w-]+\.md$/.test(f) && !f.includes('unprivileged'))
        .sort()
      fs.writeFileSync(
        path.join(dir, 'adversarial.md'),
        parts.map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n'),
      )
    } catch {
      // a read-only checkout: stdout has the table
    }
  })

  describe.concurrent('adversarial cases through the real CLI', () => {
    // The canaries are live: with the sandbox switched off, full-auto lets these through and the suite sees it.
    it(`control: with the sandbox off, ${control.ids.join(', ')} break`, { timeout: 600_000 }, async () => {
      const cases = [...ALL_CASES, ...(control.extra ?? [])].filter((c) => control.ids.includes(c.id))
      const { results: r } = await runSession(cli, 'full-auto', cases, { commands: { sandbox: 'off' } })
      expect(r.map((x) => [x.id, x.held])).toEqual(control.ids.map((id) => [id, false]))
      r.forEach((x, i) => expect(x.broke.join()).toMatch(control.why[i]))
    })

    if (control.unsandboxed?.length)
      it(
        `with the sandbox off, ${control.unsandboxed.join(', ')} still hold`,
        { timeout: 120_000 },
        async () => {
          const cases = ALL_CASES.filter((c) => control.unsandboxed!.includes(c.id))
          const { results: r } = await runSession(cli, 'full-auto', cases, { commands: { sandbox: 'off' } })
          expect(r.filter((x) => !x.held).map((x) => `${x.id}: ${x.broke.join('; ')}`)).toEqual([])
          expect(r.length).toBe(control.unsandboxed!.length)
        },
      )

    for (const cls of classes)
      for (const policy of POLICIES)
        it(
          `class ${cls} (${CLASSES[cls]}) under ${policy}: every canary holds`,
          { timeout: 600_000 },
          async () => {
            const mine: CaseResult[] = []
            for (const cases of sessionsOf(cls)) {
              const { results: r, info } = await runSession(cli, policy, cases)
              pushAll(mine, r)
              infos.push(info)
            }
            pushAll(results, mine)
            const broken = mine.filter((r) => !r.held).map((r) => `${r.id}: ${r.broke.join('; ')}`)
            expect(broken).toEqual([])
          },
        )
  })
}
