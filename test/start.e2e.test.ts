/**
 * `npm start` where the Electron binary cannot be had: the same app in the browser.
 * Runs the real script (scripts/start.mjs), which builds if needed and starts
 * `stepwise serve`; the printed URL must answer, the system opener must get it when
 * there is a display, and stopping the script's process group must leave nothing running.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openStore } from '../src/main/store/store'
import { ROOT } from './cli-harness'

// Its own build folder: other test files run the CLI from theirs, and out/ is the developer's.
const OUT_DIR = path.join('node_modules', '.cache', 'start-e2e')
const BUILD_TIMEOUT = 240_000

let running: ChildProcess | undefined
const temps: string[] = []

function tempDir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  temps.push(dir)
  return dir
}

function gitRepo(): string {
  const dir = tempDir('stepwise-start-proj-')
  execFileSync('git', ['init', '-q', dir])
  fs.writeFileSync(path.join(dir, 'hello.txt'), 'hello\n')
  return dir
}

/** Processes whose command line mentions `needle` (the serve child names its project folder). */
function processesMentioning(needle: string): number[] {
  const pids: number[] = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8')
      if (cmdline.includes(needle)) pids.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return pids
}

interface Started {
  child: ChildProcess
  url: string
  stderr: () => string
}

/** Runs `node scripts/start.mjs --browser` detached (its own process group) until it prints a URL. */
function start(cwd: string, env: NodeJS.ProcessEnv): Promise<Started> {
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.mjs'), '--browser'], {
    cwd,
    env: { ...env, STEPWISE_OUT_DIR: OUT_DIR },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  running = child
  let stdout = ''
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString()
      const url = stdout.match(/^(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m)?.[1]
      if (url) resolve({ child, url, stderr: () => stderr })
    })
    child.on('exit', (code) => reject(new Error(`start.mjs exited (${code}) before a URL:\n${stderr}`)))
  })
}

/** Stops the script the way a test harness would: SIGTERM to its whole process group. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  process.kill(-child.pid!, 'SIGTERM')
  await exited
}

async function waitFor<T>(probe: () => T | undefined, what: string, ms = 10_000): Promise<T> {
  const until = Date.now() + ms
  for (;;) {
    const value = probe()
    if (value !== undefined) return value
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

function baseEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, STEPWISE_HOME: home }
  for (const key of [
    'DISPLAY',
    'WAYLAND_DISPLAY',
    'INIT_CWD',
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
    'OLLAMA_HOST',
  ])
    delete env[key]
  return env
}

afterEach(async () => {
  if (running) await stop(running)
  running = undefined
  for (const dir of temps.splice(0)) {
    // A failed test must not leave a server behind (the assertions above report it).
    for (const pid of processesMentioning(dir)) process.kill(pid, 'SIGKILL')
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

describe('npm start without the Electron binary', () => {
  it(
    'serves the current folder, hands the URL to the opener, and stops with its process group',
    async () => {
      const project = gitRepo()
      const home = tempDir('stepwise-start-home-')
      // A display and a stand-in for xdg-open that records what it was asked to open.
      const bin = tempDir('stepwise-start-bin-')
      const opened = path.join(bin, 'opened.txt')
      fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, {
        mode: 0o755,
      })
      const env = { ...baseEnv(home), DISPLAY: ':99', PATH: `${bin}${path.delimiter}${process.env.PATH}` }

      const { child, url, stderr } = await start(project, env)
      const res = await fetch(url)
      expect(res.status).toBe(200)
      expect(await res.text()).toContain('<html')
      // Without the token the server refuses: the URL printed is the one that works.
      expect((await fetch(url.replace(/\?token=.*/, ''))).status).not.toBe(200)
      expect(stderr()).toContain(`Opening ${project} in the browser app`)
      expect(
        await waitFor(
          () => (fs.existsSync(opened) ? fs.readFileSync(opened, 'utf8') : undefined),
          'the opener',
        ),
      ).toBe(url)
      expect(processesMentioning(project).length).toBeGreaterThan(0)

      await stop(child)
      running = undefined
      // The serve child is in a group of its own: the script must have stopped it.
      await waitFor(() => (processesMentioning(project).length === 0 ? true : undefined), 'serve to exit')
      await expect(fetch(url)).rejects.toThrow()
    },
    BUILD_TIMEOUT,
  )

  it(
    'from its own checkout opens the last project the data folder remembers, and runs on when the opener is missing',
    async () => {
      const project = gitRepo()
      const home = tempDir('stepwise-start-home-')
      const store = openStore(home)
      store.setSetting('recentProjects', JSON.stringify(['/no/such/folder', project]))
      store.close()
      // A display but no opener on PATH: it must say so and keep serving.
      const bin = tempDir('stepwise-start-bin-')
      fs.symlinkSync(process.execPath, path.join(bin, 'node'))
      const env = { ...baseEnv(home), DISPLAY: ':99', PATH: bin }

      const { child, url, stderr } = await start(ROOT, env)
      expect(stderr()).toContain(`Opening ${project} in the browser app`)
      await waitFor(
        () => (stderr().includes('could not run xdg-open') ? true : undefined),
        'the opener error',
      )
      expect((await fetch(url)).status).toBe(200)

      await stop(child)
      running = undefined
      await waitFor(() => (processesMentioning(project).length === 0 ? true : undefined), 'serve to exit')
    },
    BUILD_TIMEOUT,
  )
})
