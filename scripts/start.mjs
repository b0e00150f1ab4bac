#!/usr/bin/env node
// `npm start`: build if the sources changed, then open the app. With the Electron binary
// installed, the desktop window; without it (offline installs, CI boxes, no display), the
// same app in the browser through `stepwise serve`. `npm start -- --browser` picks the
// browser on purpose.
import { spawn, spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { defaultDataDir } from '../src/main/config/data-dir.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
// Where the browser app is built; tests point it elsewhere so they never swap out/ under others.
const outDir = path.resolve(root, process.env.STEPWISE_OUT_DIR ?? 'out')
const log = (line) => process.stderr.write(`${line}\n`)

/** The Electron binary, found the way the electron package finds it, without importing it. */
function electronBinary() {
  const pkg = path.join(root, 'node_modules', 'electron')
  try {
    const rel = fs.readFileSync(path.join(pkg, 'path.txt'), 'utf8').trim()
    const bin = path.join(pkg, 'dist', rel)
    return fs.existsSync(bin) ? bin : null
  } catch {
    return null
  }
}

/** Newest modification time under `p` (a file or a folder), 0 when it does not exist. */
function newest(p) {
  let stat
  try {
    stat = fs.statSync(p)
  } catch {
    return 0
  }
  if (!stat.isDirectory()) return stat.mtimeMs
  let max = stat.mtimeMs
  for (const entry of fs.readdirSync(p)) max = Math.max(max, newest(path.join(p, entry)))
  return max
}

/** A build is needed when an output is missing or a source is newer than the last build. */
function needsBuild() {
  const outputs = ['main/cli.js', 'main/electron-main.js', 'renderer/index.html'].map((f) =>
    path.join(outDir, f),
  )
  if (!outputs.every((f) => fs.existsSync(f))) return true
  const built = outputs.reduce((oldest, f) => Math.min(oldest, fs.statSync(f).mtimeMs), Infinity)
  const inputs = ['src', 'resources', 'package.json', 'electron.vite.config.ts']
  return inputs.some((f) => newest(path.join(root, f)) > built)
}

function build() {
  const vite = path.join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js')
  // The build's report goes to stderr: stdout carries only the app's URL, for scripts to read.
  const res = spawnSync(process.execPath, [vite, 'build', '--outDir', outDir], {
    cwd: root,
    stdio: ['ignore', process.stderr, 'inherit'],
  })
  if (res.status !== 0) process.exit(res.status ?? 1)
}

/** The project the app opened last, if the data folder remembers one that still exists. */
function lastProject() {
  // The data folder `stepwise serve` uses: the core's own rule (`$STEPWISE_HOME`, else the OS folder).
  const db = path.join(defaultDataDir(), 'stepwise.db')
  if (!fs.existsSync(db)) return null
  try {
    // The same binding choice as src/main/store/sqlite.ts: the N-API 10 build crashes older Node.
    const binding = Number(process.versions.napi) >= 10 ? 'better-sqlite3-napi' : 'better-sqlite3'
    const Database = createRequire(path.join(root, 'package.json'))(binding)
    const conn = new Database(db, { readonly: true, fileMustExist: true })
    try {
      const row = conn.prepare('SELECT value FROM settings WHERE key = ?').get('recentProjects')
      const list = row ? JSON.parse(row.value) : []
      const found = Array.isArray(list)
        ? list.find((p) => typeof p === 'string' && fs.existsSync(p))
        : undefined
      return found ?? null
    } finally {
      conn.close()
    }
  } catch {
    return null // an old or locked database: start in the current folder instead
  }
}

/**
 * The folder to open: where `npm start` was typed (npm moves to the package root and keeps
 * the original in INIT_CWD). From Stepwise's own checkout, the last project, if any.
 */
function projectFolder() {
  const here = path.resolve(process.env.INIT_CWD ?? process.cwd())
  if (here !== root) return here
  return lastProject() ?? here
}

/** Opens `url` in the default browser when there is a screen to show it on; never fails. */
function openInBrowser(url) {
  const hasDisplay =
    process.platform === 'darwin' ||
    process.platform === 'win32' ||
    Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY)
  if (!hasDisplay) return
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]]
  try {
    // Its own process group, so stopping Stepwise never closes the browser it started.
    const opener = spawn(cmd, args, { stdio: 'ignore', detached: true })
    opener.on('error', () => log(`(could not run ${cmd}; open the URL above yourself)`))
    opener.unref()
  } catch {
    // no opener on this machine: the URL is printed
  }
}

function startDesktop(bin) {
  // Chromium will not start as root with its sandbox on (containers); only then is it turned off.
  const args = process.getuid?.() === 0 ? ['--no-sandbox', root] : [root]
  const child = spawn(bin, args, { cwd: root, stdio: 'inherit' })
  child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 0)))
}

function startBrowser(reason) {
  const project = projectFolder()
  log(reason)
  log(`Opening ${project} in the browser app (stepwise serve).`)
  const cli = path.join(outDir, 'main', 'cli.js')
  const child = spawn(process.execPath, [cli, 'serve', '--repo', project], {
    cwd: project,
    stdio: ['ignore', 'pipe', 'inherit'],
    // Its own group: Ctrl+C reaches this script alone, which passes it on exactly once (a
    // second SIGINT would cut the server's shutdown short).
    detached: true,
  })
  let buffered = ''
  let opened = false
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk)
    if (opened) return
    buffered += chunk.toString()
    const url = buffered.match(/^(https?:\/\/\S+)\n/m)?.[1]
    if (!url) return
    opened = true
    log(`Stepwise is running at ${url}`)
    openInBrowser(url)
  })
  // The script leaves only once the server has closed its store.
  let stopping = false
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
    process.on(signal, () => {
      if (stopping) return
      stopping = true
      child.kill(signal === 'SIGINT' ? 'SIGINT' : 'SIGTERM')
    })
  child.on('exit', (code, signal) => process.exit(signal ? 0 : (code ?? 0)))
}

const browserOnly = process.argv.includes('--browser')
if (needsBuild()) build()
const bin = browserOnly ? null : electronBinary()
if (bin && outDir === path.join(root, 'out')) startDesktop(bin)
else
  startBrowser(
    browserOnly
      ? 'Starting the browser app (--browser).'
      : 'The Electron binary is not installed (it downloads on first install, which needs its download host), so the app opens in your browser instead. `npx install-electron` on a networked machine installs the desktop window.',
  )
