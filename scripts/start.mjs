#!/usr/bin/env node
// `npm start`: build, then open the desktop app. Electron fetches its binary on first
// launch; where it cannot (offline), say so and point to what works without it.
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

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

const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' })
if (build.status !== 0) process.exit(build.status ?? 1)

const bin = electronBinary()
if (!bin) {
  process.stderr.write(
    [
      '',
      'The Electron binary is not installed, so the desktop window cannot open.',
      'Electron downloads it on first install or launch; this machine could not (no network to its download host).',
      'Fix: run `npx install-electron` (or `npm rebuild electron`) on a machine with network access.',
      '',
      'The same app runs in your browser without it:',
      '  node out/main/cli.js serve --repo path/to/project   # prints a URL to open',
      '',
      'And the CLI:',
      '  node out/main/cli.js --help',
      '  node out/main/cli.js edit "describe the change" --repo path/to/project',
      '',
    ].join('\n'),
  )
  process.exit(1)
}

// Chromium will not start as root with its sandbox on (containers); only then is it turned off.
const args = process.getuid?.() === 0 ? ['--no-sandbox', root] : [root]
const child = spawn(bin, args, { cwd: root, stdio: 'inherit' })
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 0)))
