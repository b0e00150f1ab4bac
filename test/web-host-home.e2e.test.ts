import { spawn, type ChildProcess } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { WebSocket } from 'ws'
import { connect, inbox } from '../src/main/hosts/web/test-support'
import { WS_PATH } from '../src/shared/protocol/wire'
import { buildCli, git } from './cli-harness'
import { startFakeModelServer, type FakeModelServer } from './fake-model-server'

/*
 * The web host's part of the adversarial suite for a project that is the user's home or holds
 * Stepwise's data folder, through the real `stepwise serve` and its HTTP/WebSocket API as a
 * browser page drives it. Source: CWE-552 (files accessible to external parties),
 * https://cwe.mitre.org/data/definitions/552.html; the app and `serve` open any folder.
 * A fake $HOME holds ~/.aws/credentials, ~/.ssh/config and the data folder with a stored key file;
 * `serve --repo $HOME` opens it. The listing, the model's tools, the checkpoints (`files-at`,
 * `file-at`) and the events never return them, `project/open` warns, and after the host stops
 * no canary is in the database file.
 */

let CLI: string
let server: FakeModelServer | undefined
let serve: ChildProcess | undefined
let base: string

beforeAll(() => {
  CLI = buildCli('stepwise-web-home-e2e')
}, 240_000)

afterEach(async () => {
  serve?.kill('SIGTERM')
  serve = undefined
  await server?.close()
  server = undefined
  fs.rmSync(base, { recursive: true, force: true })
})

const write = (abs: string, text: string) => {
  fs.mkdirSync(path.dirname(abs), { recursive: true })
  fs.writeFileSync(abs, text)
}

/** Starts `stepwise serve` with HOME and the data folder given; resolves with its printed URL. */
function startServe(home: string, dataDir: string, args: string[]): Promise<URL> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], {
    env: { ...process.env, HOME: home, STEPWISE_HOME: dataDir, OPENAI_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  serve = child
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const line = out.split('\n').find((l) => l.startsWith('http://'))
      if (line) resolve(new URL(line.trim()))
    })
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)))
  })
}

/** Sends commands over one WebSocket as the page does; `ask` resolves with a command's output. */
async function page(
  url: URL,
): Promise<{ ask: <T>(command: string, input: unknown) => Promise<T>; socket: WebSocket }> {
  const socket = await connect(`ws://${url.host}${WS_PATH}${url.search}`, `http://${url.host}`)
  const box = inbox(socket)
  let next = 0
  const ask = async <T>(command: string, input: unknown): Promise<T> => {
    const id = ++next
    socket.send(JSON.stringify({ id, command, input }))
    const { reply } = (await box.next((m) => (m as { id?: number }).id === id)) as {
      reply: { ok: boolean; output?: T; error?: string }
    }
    if (!reply.ok) throw new Error(`${command}: ${reply.error}`)
    return reply.output as T
  }
  return { ask, socket }
}

interface HomeCase {
  title: string
  /** The project folder to open, given the fake home. */
  project: (home: string) => string
  /** The data folder, inside the project. */
  dataDir: string
  /** Project-relative paths holding a canary, each read by the model. */
  denied: string[]
  /** Paths no listing or checkpoint may name. */
  hidden: RegExp
  warning: (project: string, dataDir: string) => string
}

const CASES: HomeCase[] = [
  {
    title: '$HOME opened as the project, with ~/.aws/credentials, ~/.ssh/config and the data folder',
    project: (home) => home,
    dataDir: '.local/share/stepwise',
    denied: ['.aws/credentials', '.ssh/config', '.local/share/stepwise/credentials.json'],
    hidden: /^\.(aws|ssh|local)\//,
    warning: (project) => `your home folder (${project})`,
  },
  {
    title: "a project that holds Stepwise's data folder",
    project: (home) => path.join(home, 'code/app'),
    dataDir: '.stepwise',
    denied: ['.stepwise/credentials.json'],
    hidden: /^\.stepwise\//,
    warning: (_project, dataDir) => `holds Stepwise's data folder (${dataDir})`,
  },
]

describe('the web host on a project that is $HOME or holds the data folder', () => {
  it.each(CASES.map((c) => [c.title, c] as const))(
    '%s: never listed, shown, snapshotted or stored, and warned of',
    async (_title, c) => {
      base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-web-home-')))
      const home = path.join(base, 'home')
      const project = c.project(home)
      const dataDir = path.join(project, c.dataDir)
      const canaries: string[] = []
      const canary = () => {
        const made = `webhome${crypto.randomBytes(8).toString('hex')}`
        canaries.push(made)
        return made
      }
      write(path.join(home, '.aws/credentials'), `[default]\naws_secret_access_key = ${canary()}\n`)
      write(path.join(home, '.ssh/config'), `Host x\n  User ${canary()}\n`)
      write(path.join(dataDir, 'credentials.json'), `{"openai": "${canary()}"}`)
      write(path.join(project, 'notes.txt'), 'an ordinary file\n')
      git(project, 'init', '-q')
      // Control: the canaries are where a plain reader of the folder finds them.
      const reads = c.denied
      const plain = reads.map((p) => fs.readFileSync(path.join(project, p), 'utf8')).join('')
      expect(canaries.filter((made) => plain.includes(made)).length).toBe(reads.length)
      server = await startFakeModelServer({
        turns: [
          { toolCalls: [{ name: 'list_files', arguments: {} }] },
          ...reads.map((p) => ({ toolCalls: [{ name: 'read_file', arguments: { path: p } }] })),
          { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
          { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'changed\n' } }] },
          { text: 'Done.' },
        ],
      })
      const url = await startServe(home, dataDir, ['--repo', project, '--approve', 'auto-edit'])
      const { ask, socket } = await page(url)
      try {
        const shown: string[] = []
        const opened = await ask<{ warning?: string }>('project/open', { repo: project })
        expect(opened.warning).toContain(c.warning(project, dataDir))
        const listed = await ask<{ files: string[] }>('project/files', { repo: project })
        expect(listed.files).toContain('notes.txt')
        expect(listed.files.filter((f) => c.hidden.test(f))).toEqual([])
        shown.push(JSON.stringify(listed))

        const { sessionId } = await ask<{ sessionId: string }>('session/create', {
          repo: project,
          provider: 'openai-chat',
          model: 'm1',
          baseUrl: server.v1Url,
          approvalPolicy: 'auto-edit',
        })
        await ask('turn/start', { sessionId, text: 'Look around' })
        let events: Array<{ type: string; seq: number; ok?: boolean }> = []
        for (const end = Date.now() + 30_000; Date.now() < end;) {
          events = (await ask<{ events: typeof events }>('session/events', { sessionId })).events
          if (events.some((e) => e.type === 'turn.finished' || e.type === 'session.finished')) break
          await new Promise((r) => setTimeout(r, 100))
        }
        expect(fs.readFileSync(path.join(project, 'notes.txt'), 'utf8')).toBe('changed\n')
        shown.push(JSON.stringify(events))
        // Every read of a denied file was refused.
        const finished = events.filter((e) => e.type === 'tool.finished') as Array<{
          name?: string
          ok?: boolean
        }>
        expect(finished.filter((e) => e.name === 'read_file').map((e) => e.ok)).toEqual([
          ...reads.map(() => false),
          true,
        ])

        for (const { seq } of events) {
          const at = await ask<{ files: string[]; diff: string }>('session/files-at', { sessionId, seq })
          expect(at.files.filter((f) => c.hidden.test(f))).toEqual([])
          shown.push(JSON.stringify(at))
        }
        const last = events.at(-1)!.seq
        for (const p of [...reads, 'notes.txt']) {
          const file = await ask<{ content: string | null; before: string | null }>('session/file-at', {
            sessionId,
            seq: last,
            path: p,
          })
          if (p !== 'notes.txt') expect(file).toMatchObject({ content: null, before: null })
          shown.push(JSON.stringify(file))
        }
        expect(canaries.filter((x) => shown.join('\n').includes(x))).toEqual([])
      } finally {
        socket.close()
      }
      // Stopped, the host leaves its database: nothing denied was written into it.
      const exited = new Promise((resolve) => serve!.once('exit', resolve))
      serve!.kill('SIGTERM')
      await exited
      serve = undefined
      // The database, its WAL and the daily backup copy: every file of the data folder but the key file.
      const stored = (fs.readdirSync(dataDir, { recursive: true }) as string[])
        .map((n) => path.join(dataDir, n))
        .filter((f) => fs.statSync(f).isFile() && path.basename(f) !== 'credentials.json')
        .map((f) => fs.readFileSync(f).toString('latin1'))
        .join('')
      expect(stored.length).toBeGreaterThan(0)
      expect(canaries.filter((x) => stored.includes(x))).toEqual([])
    },
    120_000,
  )
})
