import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

/*
 * Every client scenario of the official MCP conformance suite (@modelcontextprotocol/conformance)
 * against Stepwise's client: the runner starts each scenario's servers and runs
 * test/conformance/mcp-client.ts, which connects through McpManager as a session does (OAuth
 * sign-in, token store, elicitation included). The scenario list comes from the runner itself, so a
 * scenario added to the suite runs here without a change. The one scenario left out is listed in
 * test/conformance/expected-failures.yml with the reason; the runner fails if it starts passing.
 */

const ROOT = path.resolve(import.meta.dirname, '..')
const RUNNER = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js')
const SHIM = path.join(ROOT, 'test/conformance/node20.mjs')
const CLIENT = `${path.join(ROOT, 'node_modules/.bin/tsx')} ${path.join(ROOT, 'test/conformance/mcp-client.ts')}`
const BASELINE = path.join(ROOT, 'test/conformance/expected-failures.yml')

function runner(args: string[], cwd: string) {
  return spawnSync(process.execPath, ['--import', SHIM, RUNNER, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 90_000,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  })
}

const out = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-conformance-'))
afterAll(() => fs.rmSync(out, { recursive: true, force: true }))

function clientScenarios(): string[] {
  const listed = runner(['list'], out).stdout
  const section = listed.slice(listed.indexOf('Client scenarios'))
  return [...section.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1])
}

const scenarios = clientScenarios()
const leftOut = fs
  .readFileSync(BASELINE, 'utf8')
  .split('\n')
  .map((l) => /^\s+- (\S+)/.exec(l)?.[1])
  .filter((s): s is string => Boolean(s))

/** What the harness printed about the stored sign-in: its mode and the record's keys. */
function storedSignIn(scenario: string): string | undefined {
  const base = path.join(out, path.dirname(scenario) === '.' ? '' : path.dirname(scenario))
  const dir = fs.readdirSync(base).find((d) => d.startsWith(`${path.basename(scenario)}-`))
  const stdout = dir ? fs.readFileSync(path.join(base, dir, 'stdout.txt'), 'utf8') : ''
  return /^oauth-store (.*)$/m.exec(stdout)?.[1]
}

describe('MCP conformance: client scenarios', () => {
  it('the runner lists the 26 client scenarios of 0.1.16', () => {
    expect(scenarios).toHaveLength(26)
    expect(leftOut).toEqual(['auth/cross-app-access-complete-flow'])
  })

  it.each(scenarios)(
    '%s',
    (scenario) => {
      const res = runner(
        ['client', '--command', CLIENT, '--scenario', scenario, '-o', out, '--expected-failures', BASELINE],
        out,
      )
      // The runner prints its checks on either stream, in colour.
      // eslint-disable-next-line no-control-regex
      const text = `${res.stdout}\n${res.stderr}`.replace(/\x1b\[[0-9;]*m/g, '')
      const summary = /^Passed: .*$/m.exec(text)?.[0]
      expect(res.status, `${summary}\n${text.slice(-4000)}`).toBe(0)
      if (leftOut.includes(scenario)) return
      expect(text).toMatch(/OVERALL: PASSED/)
      expect(summary).toMatch(/^Passed: (\d+)\/\1, 0 failed/)
      // A completed sign-in is stored whole, readable by the user alone.
      if (
        scenario.startsWith('auth/') &&
        scenario !== 'auth/resource-mismatch' &&
        scenario !== 'auth/scope-retry-limit'
      )
        expect(storedSignIn(scenario)).toMatch(/^600 (client,)?discovery,expiresAt,tokens,url$/)
      // A server whose metadata names another resource is not signed in to, and nothing is kept.
      if (scenario === 'auth/resource-mismatch') expect(storedSignIn(scenario)).toBeUndefined()
    },
    100_000,
  )
})
