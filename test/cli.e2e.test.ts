/**
 * The `stepwise` CLI end to end: the built CLI on plain Node, a real
 * git repo in a temp dir, a real SQLite file, and the fake model server on
 * 127.0.0.1 speaking each wire protocol.
 */
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  buildCli,
  committedRepo,
  editArgs as harnessEditArgs,
  git,
  ROOT,
  runCli as runBuiltCli,
} from './cli-harness'
import { launcherHeader } from '../src/main/hosts/cli/launcher'
import { startFakeModelServer, type FakeModelServer, type FakeModelServerOptions } from './fake-model-server'

let CLI = ''
const runCli = (args: string[], opts?: Parameters<typeof runBuiltCli>[2]) => runBuiltCli(CLI, args, opts)

let repo: string
let dataDir: string
let server: FakeModelServer | undefined

beforeAll(() => {
  // The CLI under test is the build; make sure it is current.
  CLI = buildCli('stepwise-cli-e2e')
}, 120_000)

beforeEach(() => {
  repo = committedRepo('stepwise-cli-repo-', {
    'greet.ts': 'export function greet(name: string) {\n  return "hello " + name\n}\n',
    '.env': 'OPENAI_API_KEY=sk-secret\n',
    '.gitignore': '.env\n',
  })
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-cli-data-'))
})

afterEach(async () => {
  await server?.close()
  server = undefined
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

/** `stepwise edit TASK` over Chat Completions at `baseUrl`, in this test's repo and data folder. */
const editArgs = (task: string, baseUrl: string, ...extra: string[]): string[] =>
  harnessEditArgs({ repo, dataDir, baseUrl }, task, ...extra)

async function serve(opts: FakeModelServerOptions): Promise<FakeModelServer> {
  server = await startFakeModelServer(opts)
  return server
}

const editTurns: FakeModelServerOptions['turns'] = [
  { text: 'Let me look.', toolCalls: [{ name: 'read_file', arguments: { path: 'greet.ts' } }] },
  {
    toolCalls: [
      {
        name: 'edit_file',
        arguments: { path: 'greet.ts', old_string: '"hello " + name', new_string: '`Hello, ${name}!`' },
      },
    ],
  },
  { text: 'Greeting now uses a template literal.' },
]

function parseJsonLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

describe('stepwise edit', () => {
  const providers = [
    { provider: 'openai-chat', base: (s: FakeModelServer) => s.v1Url },
    { provider: 'openai', base: (s: FakeModelServer) => s.v1Url },
    { provider: 'ollama', base: (s: FakeModelServer) => s.url },
  ] as const

  for (const p of providers) {
    it(`runs a task end to end over ${p.provider}, prints JSON events and stores the session`, async () => {
      const s = await serve({ turns: editTurns })
      const res = await runCli(
        [
          'edit',
          'Use a template literal in greet',
          '--repo',
          repo,
          '--provider',
          p.provider,
          '--model',
          'm1',
          '--base-url',
          p.base(s),
          '--approve',
          'auto-edit',
          '--json',
          '--data-dir',
          dataDir,
        ],
        { env: { OPENAI_API_KEY: 'sk-test' } },
      )
      expect(res.stderr).toBe('')
      expect(res.code).toBe(0)
      expect(fs.readFileSync(path.join(repo, 'greet.ts'), 'utf8')).toContain('return `Hello, ${name}!`')
      const events = parseJsonLines(res.stdout)
      for (const e of events) {
        expect(typeof e.type).toBe('string')
        expect(typeof e.seq).toBe('number')
        expect(typeof e.sessionId).toBe('string')
        expect(typeof e.ts).toBe('number')
      }
      const types = events.map((e) => e.type).filter((t) => t !== 'assistant.delta')
      expect(types).toEqual([
        'session.started',
        'turn.started',
        'user.message',
        'assistant.message',
        'tool.started',
        'tool.finished',
        'assistant.message',
        'tool.started',
        'tool.finished',
        'checkpoint.created',
        'assistant.message',
        'session.finished',
        'turn.finished',
      ])
      expect(events.at(-1)).toMatchObject({ type: 'turn.finished', turn: 1, reason: 'done' })
      expect(events.at(-2)).toMatchObject({
        reason: 'done',
        steps: 3,
        usage: { inputTokens: 30, outputTokens: 15 },
      })
      // The API key never reaches the traffic log, and the .env file never reaches the model.
      const sessionId = String(events[0].sessionId)
      const raw = await runCli(['sessions', 'export', sessionId, '--format', 'raw', '--data-dir', dataDir])
      expect(raw.code).toBe(0)
      expect(raw.stdout).toContain('greet.ts')
      expect(raw.stdout).not.toContain('sk-test')
      expect(raw.stdout).not.toContain('sk-secret')
    })
  }

  it('shows, lists and exports the session; the diff export applies with git', async () => {
    const s = await serve({ turns: editTurns })
    const res = await runCli(editArgs('Use a template literal', s.v1Url, '--approve', 'auto-edit'))
    expect(res.code).toBe(0)
    expect(res.stdout).toContain('read_file greet.ts')
    expect(res.stdout).toMatch(/done · 3 steps · 30 in \/ 15 out tokens/)

    const list = await runCli(['sessions', 'list', '--json', '--repo', repo, '--data-dir', dataDir])
    const rows = JSON.parse(list.stdout) as Array<{ id: string; status: string; title: string }>
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ status: 'done', title: 'Use a template literal' })
    const id = rows[0].id

    const show = await runCli(['sessions', 'show', id.slice(0, 10), '--data-dir', dataDir])
    expect(show.code).toBe(0)
    expect(show.stdout).toMatch(/\[\s*\d+\] user {2}Use a template literal/)
    expect(show.stdout).toContain('edit_file greet.ts')
    expect(show.stdout).toContain('checkpoint')

    const diff = await runCli(['sessions', 'export', id, '--format', 'diff', '--data-dir', dataDir])
    expect(diff.stdout).toContain('--- a/greet.ts')
    expect(diff.stdout).toContain('+  return `Hello, ${name}!`')
    fs.writeFileSync(path.join(dataDir, 'change.patch'), diff.stdout)
    git(repo, 'apply', '-R', '--check', path.join(dataDir, 'change.patch'))

    const md = await runCli(['sessions', 'export', id, '--format', 'md', '--data-dir', dataDir])
    expect(md.stdout).toContain('# Use a template literal')
    expect(md.stdout).toContain('Greeting now uses a template literal.')

    const json = await runCli(['sessions', 'export', id, '--data-dir', dataDir])
    const exported = JSON.parse(json.stdout) as { session: { id: string }; events: unknown[] }
    expect(exported.session.id).toBe(id)
    expect(exported.events.length).toBeGreaterThan(10)
  })

  it('without a terminal, "ask" refuses changes and says to pass --approve', async () => {
    const s = await serve({ turns: editTurns })
    const res = await runCli(editArgs('change it', s.v1Url, '--json'))
    expect(res.code).toBe(0)
    expect(res.stderr).toContain('--approve auto-edit')
    expect(fs.readFileSync(path.join(repo, 'greet.ts'), 'utf8')).toContain('"hello " + name')
    const finished = parseJsonLines(res.stdout).find(
      (e) => e.type === 'tool.finished' && e.name === 'edit_file',
    )
    expect(finished).toMatchObject({ ok: false })
    expect(String((finished?.result as { error: string }).error)).toContain('--approve')
  })

  it('exits 3 at the step limit', async () => {
    const s = await serve({ turns: () => ({ toolCalls: [{ name: 'list_files', arguments: {} }] }) })
    const res = await runCli(editArgs('loop', s.v1Url, '--max-steps', '2'))
    expect(res.code).toBe(3)
    expect(res.stdout).toContain('stopped at the step limit')
  })

  it('reads an unquoted task as one, and stops at the tool-call limit', async () => {
    const s = await serve({
      turns: () => ({
        toolCalls: [
          { name: 'list_files', arguments: {} },
          { name: 'list_files', arguments: {} },
        ],
      }),
    })
    // `stepwise edit fix the failing test --repo DIR`: the words are the task, the flags still flags.
    const [, , ...flags] = editArgs('-', s.v1Url, '--max-tool-calls', '3', '--json')
    const res = await runCli(['edit', 'fix', 'the', 'failing', 'test', ...flags])
    expect(res.code).toBe(3)
    const events = parseJsonLines(res.stdout)
    expect(events.find((e) => e.type === 'user.message')).toMatchObject({ text: 'fix the failing test' })
    expect(events.filter((e) => e.type === 'tool.started')).toHaveLength(3)
    expect(events.findLast((e) => e.type === 'session.finished')).toMatchObject({
      reason: 'step-limit',
      message: expect.stringContaining('Stopped after 3 tool calls'),
    })
    expect(events.at(-1)).toMatchObject({ type: 'turn.finished', reason: 'step-limit' })
  })

  it('retries a 500, then finishes', async () => {
    const s = await serve({
      turns: [{ status: 500, body: '{"error":{"message":"boom","type":"server_error"}}' }, { text: 'fine' }],
    })
    const res = await runCli(editArgs('hi', s.v1Url, '--json'))
    expect(res.code).toBe(0)
    expect(parseJsonLines(res.stdout).filter((e) => e.type === 'model.retry')).toHaveLength(1)
  })

  it('exits 4 naming the URL and model when the server refuses the key (no retry)', async () => {
    const s = await serve({
      turns: [
        {
          status: 401,
          body: '{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}',
        },
      ],
    })
    const res = await runCli(editArgs('hi', s.v1Url))
    expect(res.code).toBe(4)
    expect(res.stdout).toContain(s.v1Url)
    expect(res.stdout).toContain('"m1"')
    expect(res.stdout).toContain('OPENAI_API_KEY')
    expect(s.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(1)
  })

  it('exits 4 when the URL serves an HTML page instead of a model', async () => {
    const s = await serve({
      turns: [{ raw: '<!doctype html><html><body>Welcome</body></html>', contentType: 'text/html' }],
    })
    const res = await runCli(editArgs('hi', s.v1Url))
    expect(res.code).toBe(4)
    expect(res.stdout).toContain('--base-url')
  })

  it('exits 4 when nothing listens at the URL, after retrying', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo
        probe.close(() => resolve(port))
      })
    })
    const res = await runCli([
      'edit',
      'hi',
      '--repo',
      repo,
      '--provider',
      'ollama',
      '--model',
      'qwen2.5-coder:7b',
      '--base-url',
      `http://127.0.0.1:${port}`,
      '--json',
      '--data-dir',
      dataDir,
    ])
    expect(res.code).toBe(4)
    const error = parseJsonLines(res.stdout).find((e) => e.type === 'error')
    expect(error).toMatchObject({ code: 'model-unreachable' })
    expect(String(error?.message)).toContain(`127.0.0.1:${port}`)
    expect(String(error?.hint)).toContain('ollama serve')
  }, 30_000)

  it('Ctrl+C ends the session as interrupted with exit 130 and keeps its events', async () => {
    const s = await serve({ turns: [{ hang: true }] })
    let pid = 0
    const pending = runCli(editArgs('hang', s.v1Url, '--json'), {
      onSpawn: (p) => (pid = p),
    })
    // Interrupt once the model request is in flight.
    for (let i = 0; i < 200 && s.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 25))
    process.kill(pid, 'SIGINT')
    const res = await pending
    expect(res.code).toBe(130)
    const events = parseJsonLines(res.stdout)
    expect(events.at(-2)).toMatchObject({ type: 'session.finished', reason: 'interrupted' })
    expect(events.at(-1)).toMatchObject({ type: 'turn.finished', reason: 'interrupted' })
    const list = await runCli(['sessions', 'list', '--json', '--data-dir', dataDir])
    expect(JSON.parse(list.stdout)[0]).toMatchObject({ status: 'interrupted' })
  })
})

describe('stepwise edit --until-green', () => {
  it('runs the project tests when the model says done and sends the failure back until they pass', async () => {
    fs.writeFileSync(
      path.join(repo, 'package.json'),
      JSON.stringify({ name: 'p', private: true, scripts: { test: 'node check.js' } }),
    )
    fs.writeFileSync(
      path.join(repo, 'check.js'),
      "const s = require('fs').readFileSync('greet.ts', 'utf8')\n" +
        "if (!s.includes('Hello')) { console.error('FAIL greet: expected Hello'); process.exit(1) }\n" +
        "console.log('ok')\n",
    )
    const s = await serve({
      turns: [
        { text: 'Nothing to do.' },
        {
          toolCalls: [
            { name: 'edit_file', arguments: { path: 'greet.ts', old_string: 'hello', new_string: 'Hello' } },
          ],
        },
        { text: 'Fixed.' },
      ],
    })
    const res = await runCli(
      editArgs('make the tests pass', s.v1Url, '--approve', 'auto-edit', '--until-green', '--json'),
    )
    expect(res.code).toBe(0)
    const events = parseJsonLines(res.stdout)
    const verifies = events.filter((e) => e.type === 'verify.finished')
    expect(verifies.map((e) => e.passed)).toEqual([false, true])
    expect(JSON.stringify(verifies[0].failures)).toContain('npm test')
    // The model was told what failed.
    const repairPrompt = s.requests[1].body.messages.at(-1)
    expect(repairPrompt.role).toBe('user')
    expect(repairPrompt.content).toContain('FAIL greet: expected Hello')
  }, 60_000)

  it('exits 1 and says what still fails after the last round', async () => {
    fs.writeFileSync(
      path.join(repo, 'package.json'),
      JSON.stringify({ name: 'p', private: true, scripts: { test: 'node -e "process.exit(1)"' } }),
    )
    const s = await serve({ turns: () => ({ text: 'Done.' }) })
    const res = await runCli(editArgs('x', s.v1Url, '--until-green', '--max-repairs', '1'))
    expect(res.code).toBe(1)
    expect(res.stdout).toContain('verify round 1/1')
  }, 60_000)
})

describe('stepwise edit --approve ask in a real terminal', () => {
  it('shows each diff, takes n with a reason and y, and tells the model', async () => {
    const s = await serve({
      turns: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'greet.ts' } }] },
        {
          toolCalls: [
            { name: 'edit_file', arguments: { path: 'greet.ts', old_string: 'hello', new_string: 'HELLO' } },
          ],
        },
        {
          toolCalls: [
            { name: 'edit_file', arguments: { path: 'greet.ts', old_string: 'hello', new_string: 'Hello' } },
          ],
        },
        { text: 'Capitalised.' },
      ],
    })
    const cli = [process.execPath, CLI, ...editArgs('capitalise', s.v1Url)].map((a) => `'${a}'`).join(' ')
    // `script` gives the CLI a pseudo-terminal, so it asks as it would a person.
    const child = spawn('script', ['-qefc', cli, '/dev/null'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, TERM: 'dumb' },
    })
    let screen = ''
    const answers = ['n', 'shouting is rude', 'y']
    child.stdout.on('data', (d: Buffer) => {
      screen += d.toString()
      if (/(\[a\]lways: |optional\): )$/.test(screen.trimEnd() + ' ') && answers.length)
        child.stdin.write(`${answers.shift()}\r`)
    })
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(code).toBe(0)
    expect(screen).toContain('edit_file: modify greet.ts')
    expect(screen).toContain('+  return "HELLO " + name')
    expect(fs.readFileSync(path.join(repo, 'greet.ts'), 'utf8')).toContain('"Hello " + name')
    // The rejection and its reason reached the model with the next request.
    const rejected = s.requests[2].body.messages.at(-1)
    expect(rejected.role).toBe('tool')
    expect(rejected.content).toContain('shouting is rude')
    const id = JSON.parse((await runCli(['sessions', 'list', '--json', '--data-dir', dataDir])).stdout)[0].id
    const show = await runCli(['sessions', 'show', id, '--data-dir', dataDir])
    expect(show.stdout).toContain('[reject by user]')
    expect(show.stdout).toContain('[accept by user]')
  })
})

describe('stepwise index', () => {
  it('updates the code index, parsing only what changed, and reports size and errors', async () => {
    fs.writeFileSync(path.join(repo, 'broken.ts'), 'export function (\n')
    const first = await runCli(['index', '--repo', repo, '--json', '--data-dir', dataDir])
    expect(first.code).toBe(0)
    const { status, report } = JSON.parse(first.stdout)
    expect(status).toMatchObject({ files: 3, filesWithParseErrors: 1 }) // greet.ts, broken.ts, .gitignore
    expect(report).toMatchObject({ parsed: 3, unchanged: 0 })
    const again = await runCli(['index', '--repo', repo, '--data-dir', dataDir])
    expect(again.code).toBe(0)
    expect(again.stdout).toContain('0 parsed, 3 unchanged')
    expect(again.stdout).toContain('broken.ts')
  })
})

describe('usage errors exit 2 with a clear message', () => {
  it.each([
    [['edit'], 'missing required argument'],
    [['edit', 'x', '--approve', 'sometimes'], 'Allowed choices are ask, auto-edit, full-auto, read-only'],
    [['edit', 'x', '--max-steps', 'zero'], 'positive whole number'],
    [['edit', 'x', '--repo', '/nonexistent/stepwise-test'], 'project folder not found'],
    [['edit', 'x', '--provider', 'openai-chat'], '--model is required'],
    [['sessions', 'show', 'nope'], 'no session matches "nope"'],
    [['frobnicate'], "unknown command 'frobnicate'"],
  ])('%j', async (args, message) => {
    const res = await runCli([...args, ...(args[0] === 'frobnicate' ? [] : ['--data-dir', dataDir])])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain(message)
  })

  it('--version and --help exit 0', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }
    expect(await runCli(['--version'])).toMatchObject({ code: 0, stdout: `${pkg.version}\n` })
    const help = await runCli(['sessions', 'export', '--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('--format')
  })

  it.skipIf(process.platform === 'win32')(
    'runs as a program through its launcher, as `stepwise` does',
    () => {
      expect(fs.readFileSync(CLI, 'utf8').startsWith(`${launcherHeader()}\n`)).toBe(true)
      const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }
      const PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`
      const run = spawnSync(CLI, ['--version'], { env: { ...process.env, PATH }, encoding: 'utf8' })
      expect(run).toMatchObject({ status: 0, stdout: `${pkg.version}\n`, stderr: '' })
    },
  )
})
