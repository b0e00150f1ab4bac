import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type BrowserContext } from 'playwright-core'
import { WebSocket } from 'ws'
import { gitProject } from '../e2e/serve-harness'

/*
 * The app as bench/ui.bench.ts drives it: the built CLI's `stepwise serve` on plain Node,
 * Debian's Chromium, and temp folders, all tracked so that every process is stopped and
 * every folder removed even when a measurement throws.
 */

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))
export const CLI = path.join(root, 'out', 'main', 'cli.js')
const RENDERER = path.join(root, 'out', 'renderer', 'index.html')
const CHROMIUM = '/usr/bin/chromium'

/** Throws with the fix when the app is not built. */
export function requireBuild(): void {
  for (const file of [CLI, RENDERER])
    if (!fs.existsSync(file))
      throw new Error(`${path.relative(root, file)} is missing: run \`npm run build\` first.`)
}

const children = new Set<ChildProcess>()
const dirs = new Set<string>()

// The last resort if the process dies between a spawn and its cleanup.
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
})

export function tempDir(label: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `stepwise-bench-ui-${label}-`)))
  dirs.add(dir)
  return dir
}

/** A git project in a temp folder (the e2e helper), removed by cleanUp too. */
export function project(files: Record<string, string>): string {
  const repo = gitProject(files)
  dirs.add(repo)
  return repo
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true })
  dirs.delete(dir)
}

/** Stops a child as Ctrl+C does, then SIGKILL after 3 s; resolves once it has exited. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGINT')
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000)
    await exited
    clearTimeout(timer)
  }
  children.delete(child)
}

/** Every child still running is stopped and every temp folder removed. */
export async function cleanUp(): Promise<void> {
  await Promise.all([...children].map(stopChild))
  for (const dir of [...dirs]) removeDir(dir)
}

export interface Serve {
  child: ChildProcess
  /** The page address with its token, as printed on the first line. */
  url: string
  stderr(): string
  stop(): Promise<void>
}

export interface ServeOptions {
  repo: string
  dataDir: string
  /** The fake model server (Ollama protocol). */
  modelUrl: string
  approve?: string
}

export function serveArgs(opts: ServeOptions): string[] {
  return [
    CLI,
    'serve',
    '--repo',
    opts.repo,
    '--data-dir',
    opts.dataDir,
    '--provider',
    'ollama',
    '--model',
    'coder:1b',
    '--base-url',
    opts.modelUrl,
    '--approve',
    opts.approve ?? 'auto-edit',
  ]
}

/** Spawns `stepwise serve` and resolves with the URL of its first line of output. */
export function startServe(opts: ServeOptions): Promise<Serve> {
  const child = spawn(process.execPath, serveArgs(opts), {
    env: { ...process.env, OPENAI_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.add(child)
  let err = ''
  let out = ''
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
  return new Promise<Serve>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer)
      void stopChild(child)
      reject(new Error(`stepwise serve ${why}:\n${err.slice(0, 2000)}`))
    }
    const timer = setTimeout(() => fail('printed no URL in 15 s'), 15_000)
    child.on('error', (e) => fail(`could not start (${e.message})`))
    child.on('exit', (code) => fail(`exited with ${code}`))
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const newline = out.indexOf('\n')
      if (newline < 0) return
      clearTimeout(timer)
      child.removeAllListeners('exit')
      const url = out.slice(0, newline).trim()
      if (!url.startsWith('http')) return fail(`printed "${url}" instead of its URL`)
      resolve({ child, url, stderr: () => err, stop: () => stopChild(child) })
    })
  })
}

export function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (Debian's chromium package).`)
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  })
}

/**
 * A fresh context (no cache, no cookies). tsx compiles with esbuild's keepNames, which wraps
 * named functions in `__name(...)`; the page gets a no-op one so evaluated functions run there.
 */
export async function newContext(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  await context.addInitScript({ content: 'globalThis.__name = (fn) => fn' })
  return context
}

export interface SocketProbe {
  /** Epoch ms when each message with a seq arrived. */
  arrivals: Map<number, number>
  close(): void
}

/** A WebSocket client in this process (outside the page): when the host's events reach a client at all. */
export async function openSocketProbe(pageUrl: string): Promise<SocketProbe> {
  const url = new URL(pageUrl)
  const socket = new WebSocket(`ws://${url.host}/ws${url.search}`, { origin: url.origin })
  const arrivals = new Map<number, number>()
  socket.on('message', (data) => {
    const t = performance.timeOrigin + performance.now()
    const frame = JSON.parse(String(data)) as { message?: { seq?: number } }
    const seq = frame.message?.seq
    if (typeof seq === 'number' && !arrivals.has(seq)) arrivals.set(seq, t)
  })
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve())
    socket.once('error', reject)
  })
  return { arrivals, close: () => socket.close() }
}
