/**
 * Day-to-day use of the built `stepwise` CLI: what an edit run says at its end, the default
 * model from the environment, output piped into a reader that stops early, deleting and
 * renaming sessions (with their snapshots, and their forks kept working), and the app's core
 * service on the same database as a CLI run at the same time.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createCoreService } from '../src/main/service/service'
import { openStore } from '../src/main/store/store'
import { stepNumberAt, stepsOf } from '../src/shared/steps'
import { buildCli, committedRepo, editArgs as harnessEditArgs, runCli as runBuiltCli } from './cli-harness'
import { startFakeModelServer, type FakeModelServer, type FakeModelServerOptions } from './fake-model-server'

let CLI = ''
const runCli = (args: string[], opts?: Parameters<typeof runBuiltCli>[2]) => runBuiltCli(CLI, args, opts)

let repo: string
let dataDir: string
const servers: FakeModelServer[] = []

beforeAll(() => {
  CLI = buildCli('stepwise-cli-daily-e2e')
}, 180_000)

beforeEach(() => {
  repo = committedRepo('stepwise-daily-repo-', { 'greet.ts': 'export const greeting = "hello"\n' })
  dataDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-daily-data-')))
})

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

async function serve(turns: FakeModelServerOptions['turns']): Promise<FakeModelServer> {
  const server = await startFakeModelServer({ turns })
  servers.push(server)
  return server
}

const editArgs = (task: string, baseUrl: string, ...extra: string[]): string[] =>
  harnessEditArgs({ repo, dataDir, baseUrl }, task, '--approve', 'auto-edit', ...extra)

const edit = (path: string, from: string, to: string) => ({
  toolCalls: [{ name: 'edit_file', arguments: { path, old_string: from, new_string: to } }],
})
const read = (path: string) => ({ toolCalls: [{ name: 'read_file', arguments: { path } }] })
const writeFile = (path: string, content: string) => ({
  toolCalls: [{ name: 'write_file', arguments: { path, content } }],
})

function sessionIds(): string[] {
  const store = openStore(dataDir)
  try {
    return store.listSessions().map((s) => s.id)
  } finally {
    store.close()
  }
}

const dbBytes = (): number =>
  ['', '-wal'].reduce((sum, ext) => {
    const file = path.join(dataDir, `stepwise.db${ext}`)
    return sum + (fs.existsSync(file) ? fs.statSync(file).size : 0)
  }, 0)

describe('the end of an edit run', () => {
  it('names the commands that show what happened, and each of them works as printed', async () => {
    const server = await serve([read('greet.ts'), edit('greet.ts', 'hello', 'Hello'), { text: 'Done.' }])
    const run = await runCli(editArgs('Capitalize the greeting', server.v1Url))
    expect(run.code).toBe(0)
    const [id] = sessionIds()
    const printed = run.stdout.split('\n').filter((l) => l.startsWith('  stepwise sessions '))
    expect(printed).toEqual([
      `  stepwise sessions show ${id} --data-dir ${dataDir}`,
      `  stepwise sessions export ${id} --format diff --data-dir ${dataDir}`,
      `  stepwise sessions export ${id} --format raw --data-dir ${dataDir}`,
    ])
    const outputs = []
    for (const line of printed) {
      const args = line.trim().split(' ').slice(1)
      const result = await runCli(args)
      expect(result.code).toBe(0)
      outputs.push(result.stdout)
    }
    expect(outputs[0]).toContain('edit_file')
    expect(outputs[1]).toContain('+export const greeting = "Hello"')
    expect(outputs[2]).toContain('/v1/chat/completions')
  })
})

describe('the default model from the environment', () => {
  it('uses $OPENAI_MODEL with openai-chat when --model is absent, and still asks for one without it', async () => {
    const server = await serve([{ text: 'Hi.' }])
    const args = ['edit', 'Say hi', '--repo', repo, '--provider', 'openai-chat', '--base-url', server.v1Url]
    const run = await runCli([...args, '--data-dir', dataDir], { env: { OPENAI_MODEL: 'env-model' } })
    expect(run.code).toBe(0)
    expect(server.requests.find((r) => r.path === '/v1/chat/completions')?.body.model).toBe('env-model')
    // --model still wins over the environment.
    const flagged = await serve([{ text: 'Hi.' }])
    const byFlag = await runCli(
      ['edit', 'Say hi', '--repo', repo, '--provider', 'openai-chat', '--model', 'flag-model'],
      { env: { OPENAI_MODEL: 'env-model', STEPWISE_HOME: dataDir, OPENAI_BASE_URL: flagged.v1Url } },
    )
    expect(byFlag.code).toBe(0)
    expect(flagged.requests.find((r) => r.path === '/v1/chat/completions')?.body.model).toBe('flag-model')
    const none = await runCli([...args, '--data-dir', dataDir], { env: { OPENAI_MODEL: '' } })
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(/--model is required with --provider openai-chat, or set \$OPENAI_MODEL/)
  })

  it('uses $OLLAMA_MODEL with ollama when --model is absent', async () => {
    const server = await serve([{ text: 'Hi.' }])
    const run = await runCli(
      [
        'edit',
        'Say hi',
        '--repo',
        repo,
        '--provider',
        'ollama',
        '--base-url',
        server.url,
        '--data-dir',
        dataDir,
      ],
      { env: { OLLAMA_MODEL: 'tiny-coder:1b' } },
    )
    expect(run.code).toBe(0)
    expect(server.requests.find((r) => r.path === '/api/chat')?.body.model).toBe('tiny-coder:1b')
  })
})

describe('output piped into a reader that stops early', () => {
  it('ends quietly with exit 0 and nothing on stderr', async () => {
    // A session whose exports are far larger than a pipe's buffer (64 KiB).
    const big = randomBytes(300_000).toString('base64')
    const server = await serve([writeFile('big.txt', big), { text: 'Wrote it.' }])
    expect((await runCli(editArgs('Write big.txt', server.v1Url, '--num-ctx', '2000000'))).code).toBe(0)
    const [id] = sessionIds()
    for (const args of [
      ['sessions', 'export', id, '--format', 'json'],
      ['sessions', 'export', id, '--format', 'raw'],
    ]) {
      const child = spawn(process.execPath, [CLI, ...args, '--data-dir', dataDir], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stderr = ''
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
      // Like `| head -n 1`: take the first chunk, then close the pipe.
      child.stdout.once('data', () => child.stdout.destroy())
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
      expect({ args: args.join(' '), code, stderr }).toEqual({ args: args.join(' '), code: 0, stderr: '' })
    }
  })
})

describe('stepwise sessions delete and rename', () => {
  it('deletes a session with the file contents only it used; the database file shrinks', async () => {
    // Two large files only this session ever wrote (random, so they do not compress away).
    const big1 = randomBytes(300_000).toString('base64')
    const big2 = randomBytes(300_000).toString('base64')
    const first = await serve([writeFile('big1.txt', big1), writeFile('big2.txt', big2), { text: 'ok' }])
    // A window the large calls fit in.
    const wrote = await runCli(editArgs('Write big', first.v1Url, '--num-ctx', '2000000'))
    expect(wrote.code).toBe(0)
    const [doomed] = sessionIds()
    // The user removes it; a later session on the same project is kept.
    fs.rmSync(path.join(repo, 'big1.txt'))
    fs.rmSync(path.join(repo, 'big2.txt'))
    const second = await serve([read('greet.ts'), edit('greet.ts', 'hello', 'hi'), { text: 'ok' }])
    expect((await runCli(editArgs('Say hi', second.v1Url))).code).toBe(0)
    const kept = sessionIds().find((id) => id !== doomed)!

    const before = dbBytes()
    const refused = await runCli(['sessions', 'delete', doomed, '--data-dir', dataDir])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/needs --yes when not run on a terminal/)
    expect(sessionIds()).toContain(doomed)

    const deleted = await runCli(['sessions', 'delete', doomed.slice(0, 9), '--yes', '--data-dir', dataDir])
    expect(deleted.code).toBe(0)
    expect(deleted.stdout).toMatch(/^Deleted 1 session: \d+ snapshots and \d+ stored file contents/)
    const after = dbBytes()
    console.log(`[delete] ${deleted.stdout.trim()} (file ${before} → ${after} bytes)`)
    expect(before - after).toBeGreaterThan(500_000)
    expect(sessionIds()).toEqual([kept])
    // The kept session still exports its change and undoes it.
    const diff = await runCli(['sessions', 'export', kept, '--format', 'diff', '--data-dir', dataDir])
    expect(diff.stdout).toContain('+export const greeting = "hi"')
    expect((await runCli(['sessions', 'undo', kept, '--data-dir', dataDir])).code).toBe(0)
    expect(fs.readFileSync(path.join(repo, 'greet.ts'), 'utf8')).toBe('export const greeting = "hello"\n')

    const renamed = await runCli(['sessions', 'rename', kept, 'Greeting, shorter', '--data-dir', dataDir])
    expect(renamed).toMatchObject({ code: 0, stdout: `Renamed ${kept}: Greeting, shorter\n` })
    const list = await runCli(['sessions', 'list', '--json', '--data-dir', dataDir])
    expect(JSON.parse(list.stdout)).toMatchObject([{ id: kept, title: 'Greeting, shorter' }])
    const unknown = await runCli(['sessions', 'delete', 'zzzz', '--yes', '--data-dir', dataDir])
    expect(unknown.code).toBe(2)
  })

  it('keeps a fork working after its parent is deleted', async () => {
    const server = await serve([
      read('greet.ts'),
      edit('greet.ts', 'hello', 'Hello'),
      edit('greet.ts', 'Hello', 'Hello!'),
      { text: 'ok' },
    ])
    expect((await runCli(editArgs('Two edits', server.v1Url))).code).toBe(0)
    const [parent] = sessionIds()
    const store = openStore(dataDir)
    const parentEvents = store.listEvents(parent)
    const firstCheckpoint = stepNumberAt(
      stepsOf(parentEvents),
      parentEvents.find((e) => e.type === 'checkpoint.created')!.seq,
    )
    store.close()
    const fork = await runCli([
      'sessions',
      'fork',
      parent,
      '--at',
      String(firstCheckpoint),
      '--yes',
      '--data-dir',
      dataDir,
    ])
    expect(fork.code).toBe(0)
    const child = sessionIds().find((id) => id !== parent)!
    expect(fs.readFileSync(path.join(repo, 'greet.ts'), 'utf8')).toBe('export const greeting = "Hello"\n')

    expect((await runCli(['sessions', 'delete', parent, '--yes', '--data-dir', dataDir])).code).toBe(0)
    expect(sessionIds()).toEqual([child])
    const shown = await runCli(['sessions', 'show', child, '--data-dir', dataDir])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain(`forked from ${parent}`)
    // Its copied checkpoint still points at a stored snapshot: a rewind to it works.
    fs.writeFileSync(path.join(repo, 'greet.ts'), 'export const greeting = "changed"\n')
    const rewind = await runCli([
      'sessions',
      'rewind',
      child,
      '--to',
      String(firstCheckpoint),
      '--yes',
      '--data-dir',
      dataDir,
    ])
    expect(rewind.stderr).toBe('')
    expect(rewind.code).toBe(0)
    expect(fs.readFileSync(path.join(repo, 'greet.ts'), 'utf8')).toBe('export const greeting = "Hello"\n')
    const diff = await runCli(['sessions', 'export', child, '--format', 'diff', '--data-dir', dataDir])
    expect(diff.code).toBe(0)
  })
})

describe('the app and the CLI on one database', () => {
  it('runs a chat turn in the app’s service while a CLI edit runs, and each sees the other’s session', async () => {
    const appServer = await startFakeModelServer({
      turns: [{ hang: true }, read('greet.ts'), { text: 'It greets.' }],
    })
    servers.push(appServer)
    const store = openStore(dataDir)
    const service = createCoreService({
      store,
      dataDir,
      host: 'web',
      defaults: {
        provider: 'ollama',
        model: 'coder:1b',
        baseUrl: appServer.url,
        approvalPolicy: 'auto-edit',
      },
    })
    try {
      const created = await service.answer('session/create', { repo })
      if (!created.ok) throw new Error(created.error)
      const { sessionId } = created.output as { sessionId: string }
      // The app's first turn hangs on its model (the database stays open) while the CLI works.
      expect((await service.answer('turn/start', { sessionId, text: 'Wait' })).ok).toBe(true)
      const cliServer = await serve([read('greet.ts'), edit('greet.ts', 'hello', 'Hello'), { text: 'Done.' }])
      const cli = await runCli(editArgs('Capitalize', cliServer.v1Url))
      expect(cli.code).toBe(0)
      // The CLI does not delete a session whose turn runs in the app.
      const busy = await runCli(['sessions', 'delete', sessionId, '--yes', '--data-dir', dataDir])
      expect(busy.code).toBe(2)
      expect(busy.stderr).toMatch(/is running a turn in a live Stepwise process: stop it first/)
      await service.answer('turn/interrupt', { sessionId })
      while (service.sessions.isRunning(sessionId)) await new Promise((r) => setTimeout(r, 10))
      // Both keep working: another app turn, and the CLI lists both sessions.
      expect((await service.answer('turn/start', { sessionId, text: 'What does it do?' })).ok).toBe(true)
      while (service.sessions.isRunning(sessionId)) await new Promise((r) => setTimeout(r, 10))
      expect(store.listEvents(sessionId).at(-2)).toMatchObject({ type: 'session.finished', reason: 'done' })
      expect(store.listEvents(sessionId).at(-1)).toMatchObject({ type: 'turn.finished', reason: 'done' })
      const listed = await service.answer('session/list', {})
      expect(listed.ok && (listed.output as { sessions: unknown[] }).sessions).toHaveLength(2)
      const fromCli = await runCli(['sessions', 'list', '--json', '--data-dir', dataDir])
      expect((JSON.parse(fromCli.stdout) as Array<{ id: string }>).map((s) => s.id)).toContain(sessionId)
    } finally {
      await service.close()
      store.close()
    }
  })
})
