/**
 * `stepwise sessions export --format bundle` and `stepwise sessions import` end to
 * end: the built CLI, a session recorded by `stepwise edit` against the fake model
 * server, exported from one data folder and imported into another.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { buildCli, editArgs, git, runCli as runBuiltCli } from './cli-harness'
import { startFakeModelServer, type FakeModelServer } from './fake-model-server'

let CLI = ''
const runCli = (args: string[], opts?: Parameters<typeof runBuiltCli>[2]) => runBuiltCli(CLI, args, opts)

let tmp: string
let repo: string
let server: FakeModelServer | undefined

beforeAll(() => {
  CLI = buildCli('stepwise-bundle-e2e')
}, 120_000)

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-bundle-e2e-')))
  repo = path.join(tmp, 'repo')
  fs.mkdirSync(repo)
  fs.writeFileSync(path.join(repo, 'greet.ts'), 'export const greet = (n: string) => "hello " + n\n')
  git(repo, 'init', '-q')
})

afterEach(async () => {
  await server?.close()
  server = undefined
  fs.rmSync(tmp, { recursive: true, force: true })
})

async function recordSession(dataDir: string): Promise<string> {
  server = await startFakeModelServer({
    turns: [
      {
        toolCalls: [
          {
            name: 'edit_file',
            arguments: { path: 'greet.ts', old_string: '"hello " + n', new_string: '`Hello, ${n}!`' },
          },
        ],
      },
      { text: 'Done.' },
    ],
  })
  const res = await runCli(
    editArgs({ repo, dataDir, baseUrl: server.v1Url }, 'Use a template literal', '--approve', 'auto-edit'),
  )
  expect(res.code).toBe(0)
  const list = await runCli(['sessions', 'list', '--json', '--data-dir', dataDir])
  return (JSON.parse(list.stdout) as Array<{ id: string }>)[0].id
}

describe('stepwise sessions export --format bundle / import', () => {
  it('exports a recorded session to one file and imports it into another data folder', async () => {
    const from = path.join(tmp, 'from')
    const to = path.join(tmp, 'to')
    const id = await recordSession(from)
    const out = path.join(tmp, 'session.stepwise')

    const exported = await runCli([
      'sessions',
      'export',
      id,
      '--format',
      'bundle',
      '--out',
      out,
      '--data-dir',
      from,
    ])
    expect(exported).toMatchObject({ code: 0, stderr: '' })
    expect(exported.stdout).toContain(`Wrote ${out} (`)
    expect(fs.statSync(out).size).toBeGreaterThan(100)

    const imported = await runCli(['sessions', 'import', out, '--data-dir', to])
    expect(imported).toMatchObject({ code: 0, stderr: '' })
    expect(imported.stdout).toContain(`Imported session ${id}: `)
    expect(imported.stdout).toContain(`Show it with: stepwise sessions show ${id} --data-dir "${to}"`)

    // The same events, as the json export prints them, from both data folders.
    const jsonFrom = await runCli(['sessions', 'export', id, '--data-dir', from])
    const jsonTo = await runCli(['sessions', 'export', id, '--data-dir', to])
    expect(jsonTo.code).toBe(0)
    expect(JSON.parse(jsonTo.stdout)).toEqual(JSON.parse(jsonFrom.stdout))
    // And the net change from the imported snapshots.
    const diff = await runCli(['sessions', 'export', id, '--format', 'diff', '--data-dir', to])
    expect(diff.stdout).toContain('+export const greet = (n: string) => `Hello, ${n}!`')

    // --out works for the text formats too.
    const md = path.join(tmp, 'session.md')
    const wroteMd = await runCli(['sessions', 'export', id, '--format', 'md', '--out', md, '--data-dir', to])
    expect(wroteMd.code).toBe(0)
    expect(fs.readFileSync(md, 'utf8')).toContain('# Use a template literal')
  }, 60_000)

  it('refuses a truncated bundle with exit code 1 and a missing file with exit code 2', async () => {
    const from = path.join(tmp, 'from')
    const id = await recordSession(from)
    const out = path.join(tmp, 'session.stepwise')
    expect(
      (await runCli(['sessions', 'export', id, '--format', 'bundle', '--out', out, '--data-dir', from])).code,
    ).toBe(0)
    const cut = path.join(tmp, 'cut.stepwise')
    fs.writeFileSync(cut, fs.readFileSync(out).subarray(0, 200))

    const to = path.join(tmp, 'to')
    const refused = await runCli(['sessions', 'import', cut, '--data-dir', to])
    expect(refused).toMatchObject({ code: 1, stdout: '' })
    expect(refused.stderr).toContain('is incomplete')
    expect((await runCli(['sessions', 'list', '--json', '--data-dir', to])).stdout.trim()).toBe('[]')

    const missing = await runCli(['sessions', 'import', path.join(tmp, 'nope.stepwise'), '--data-dir', to])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('cannot read')
  }, 60_000)
})
