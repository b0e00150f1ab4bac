/**
 * `stepwise review` end to end: the built out/main/cli.js on plain Node, a real git
 * repo in a temp dir, a real SQLite file, and the fake model server on 127.0.0.1.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { buildCli, commit, committedRepo, runCli as runBuiltCli } from './cli-harness'
import { startFakeModelServer, type FakeModelServer, type FakeModelServerOptions } from './fake-model-server'

let CLI = ''
const runCli = (args: string[], env: Record<string, string> = {}) => runBuiltCli(CLI, args, { env })

let repo: string
let dataDir: string
let server: FakeModelServer | undefined

beforeAll(() => {
  // The CLI under test is the build; make sure it is current.
  CLI = buildCli('stepwise-review-e2e')
}, 120_000)

const CALC_V1 = 'export function average(xs: number[]) {\n  return sum(xs) / xs.length\n}\n'
const CALC_V2 = `${CALC_V1}export function run(code: string) {\n  return eval(code)\n}\n`

beforeEach(() => {
  repo = committedRepo('stepwise-review-repo-', {
    'calc.ts': CALC_V1,
    '.env': 'OPENAI_API_KEY=sk-secret\n',
    '.gitignore': '.env\n',
  })
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-review-data-'))
  fs.writeFileSync(path.join(repo, 'calc.ts'), CALC_V2)
  commit(repo, '-qam', 'Add run')
})

afterEach(async () => {
  await server?.close()
  server = undefined
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

async function serve(opts: FakeModelServerOptions): Promise<FakeModelServer> {
  server = await startFakeModelServer(opts)
  return server
}

function reviewArgs(baseUrl: string, ...extra: string[]): string[] {
  return [
    'review',
    ...extra,
    '--repo',
    repo,
    '--provider',
    'openai-chat',
    '--model',
    'm1',
    '--base-url',
    baseUrl,
    '--data-dir',
    dataDir,
  ]
}

const twoFindings: FakeModelServerOptions['turns'] = [
  { text: 'Reading it.', toolCalls: [{ name: 'read_file', arguments: { path: 'calc.ts' } }] },
  {
    toolCalls: [
      {
        name: 'report_finding',
        arguments: {
          file: 'calc.ts',
          line: 5,
          severity: 'high',
          category: 'security',
          message: 'eval runs any code it is given.',
          suggestion: 'Parse the input instead of evaluating it.',
        },
      },
      {
        name: 'report_finding',
        arguments: {
          file: 'calc.ts',
          line: 2,
          severity: 'low',
          category: 'bug',
          message: 'An empty array gives NaN.',
        },
      },
    ],
  },
  { text: 'One security hole (eval) and a NaN on empty input.' },
]

const userTask = (s: FakeModelServer): string => {
  const messages = s.requests[0].body.messages as { role: string; content: string }[]
  return messages.find((m) => m.role === 'user')!.content
}

describe('stepwise review', () => {
  it('prints findings as JSON, exits 1 on a high finding, and stores the session', async () => {
    const s = await serve({ turns: twoFindings })
    const res = await runCli(reviewArgs(s.v1Url, 'calc.ts', '--json', '--focus', 'security'))
    expect(res.stderr).toBe('')
    expect(res.code).toBe(1)
    const doc = JSON.parse(res.stdout) as Record<string, unknown>
    expect(doc).toEqual({
      sessionId: expect.any(String),
      target: 'the file calc.ts',
      reason: 'done',
      findings: [
        { file: 'calc.ts', line: 2, severity: 'low', category: 'bug', message: 'An empty array gives NaN.' },
        {
          file: 'calc.ts',
          line: 5,
          severity: 'high',
          category: 'security',
          message: 'eval runs any code it is given.',
          suggestion: 'Parse the input instead of evaluating it.',
        },
      ],
      counts: { high: 1, medium: 0, low: 1 },
      summary: 'One security hole (eval) and a NaN on empty input.',
    })
    expect(userTask(s)).toContain('Focus: security')

    // No tool that changes anything is offered, in any request.
    for (const request of s.requests.filter((r) => r.path.endsWith('/chat/completions'))) {
      const names = (request.body.tools as { function: { name: string } }[]).map((t) => t.function.name)
      expect(names).toContain('report_finding')
      expect(names).toContain('git_diff')
      for (const mutating of [
        'write_file',
        'edit_file',
        'edit_lines',
        'delete_file',
        'git_commit',
        'run_command',
      ])
        expect(names).not.toContain(mutating)
    }

    const sessionId = String(doc.sessionId)
    const list = await runCli(['sessions', 'list', '--json', '--data-dir', dataDir])
    expect(JSON.parse(list.stdout)).toMatchObject([
      { id: sessionId, title: 'Review the file calc.ts.', status: 'done' },
    ])
    const exported = JSON.parse(
      (await runCli(['sessions', 'export', sessionId, '--data-dir', dataDir])).stdout,
    ) as {
      events: { type: string; finding?: unknown }[]
    }
    expect(exported.events.filter((e) => e.type === 'review.finding').map((e) => e.finding)).toEqual(
      [...(doc.findings as unknown[])].reverse(),
    )
    const show = await runCli(['sessions', 'show', sessionId, '--data-dir', dataDir])
    expect(show.code).toBe(0)
    expect(show.stdout).toContain('eval runs any code it is given.')
  })

  it('prints findings grouped by file in human mode', async () => {
    const s = await serve({ turns: twoFindings })
    const res = await runCli(reviewArgs(s.v1Url, 'calc.ts'))
    expect(res.code).toBe(1)
    const sessionId = /Session (\S+)\./.exec(res.stdout)?.[1]
    expect(res.stdout).toBe(
      [
        'calc.ts',
        '  2  low     bug          An empty array gives NaN.',
        '  5  high    security     eval runs any code it is given.',
        '     → Parse the input instead of evaluating it.',
        '',
        `2 findings: 1 high, 0 medium, 1 low. Reviewed the file calc.ts. Session ${sessionId}.`,
        '',
        'One security hole (eval) and a NaN on empty input.',
        '',
      ].join('\n'),
    )
    // Progress went to stderr.
    expect(res.stderr).toContain('read_file calc.ts')
  })

  it('exits 0 when nothing is found, reviewing a range of commits', async () => {
    const s = await serve({ turns: [{ text: 'Looks fine.' }] })
    const res = await runCli(reviewArgs(s.v1Url, 'git:HEAD~1..HEAD', '--json'))
    expect(res.code).toBe(0)
    expect(JSON.parse(res.stdout)).toMatchObject({
      target: 'the commits HEAD~1..HEAD',
      reason: 'done',
      findings: [],
      counts: { high: 0, medium: 0, low: 0 },
      summary: 'Looks fine.',
    })
    const task = userTask(s)
    expect(task.split('\n')[0]).toBe('Review the commits HEAD~1..HEAD.')
    expect(task).toContain('- calc.ts (+3 -0)')
    expect(task).toContain('+  return eval(code)')
    expect(task).not.toContain('sk-secret')
  })

  it('reviews the uncommitted changes by default, and has nothing to do on a clean tree', async () => {
    const s = await serve({ turns: [{ text: 'Fine.' }] })
    const clean = await runCli(reviewArgs(s.v1Url, '--json'))
    expect(clean.code).toBe(0)
    expect(JSON.parse(clean.stdout)).toMatchObject({
      sessionId: null,
      reason: 'nothing-to-review',
      findings: [],
    })
    expect(s.requests).toHaveLength(0)
    fs.writeFileSync(path.join(repo, 'calc.ts'), `${CALC_V2}// todo\n`)
    const dirty = await runCli(reviewArgs(s.v1Url, '--json'))
    expect(dirty.code).toBe(0)
    expect(userTask(s)).toContain('+// todo')
  })

  it('exits 2 on a bad target or an unknown ref, before calling the model', async () => {
    const s = await serve({ turns: [{ text: 'unused' }] })
    const missing = await runCli(reviewArgs(s.v1Url, 'nope.ts'))
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('"nope.ts" does not exist')
    const badRef = await runCli(reviewArgs(s.v1Url, 'git:no-such-branch'))
    expect(badRef.code).toBe(2)
    expect(badRef.stderr).toBe(
      'stepwise: unknown revision in "git:no-such-branch": it is not a commit in this repository (see git log).\n',
    )
    expect(s.requests).toHaveLength(0)
  })

  it('exits 4 when the model server refuses the key', async () => {
    const s = await serve({
      turns: [
        { status: 401, body: '{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}' },
      ],
    })
    const res = await runCli(reviewArgs(s.v1Url, 'calc.ts', '--json'))
    expect(res.code).toBe(4)
    expect(JSON.parse(res.stdout)).toMatchObject({ reason: 'error', findings: [] })
    expect(res.stderr).toContain(s.v1Url)
  })
})
