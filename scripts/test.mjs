#!/usr/bin/env node
// `npm test`: make sure what the tests need is here, then lint, typecheck, build,
// the Vitest suites and the Playwright specs; end with one line `N passed, N failed`.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const results = path.join(root, 'test-results')
const CHROMIUM = '/usr/bin/chromium'

function log(message) {
  process.stdout.write(`\n[test] ${message}\n`)
}

function run(command, args, opts = {}) {
  const res = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...opts })
  if (res.error) return { ok: false, status: null, error: res.error }
  return { ok: res.status === 0, status: res.status }
}

function has(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0
}

/** System packages: git (temp repos), script (a real terminal for the CLI), Chromium (e2e). */
function ensureSystemPackages() {
  const missing = []
  if (!has('git')) missing.push('git')
  if (!has('script')) missing.push('bsdutils')
  if (!fs.existsSync(CHROMIUM)) missing.push('chromium')
  // bubblewrap is nice to have (sandbox tests skip without it): installed when we can, never required.
  const optional = has('bwrap') ? [] : ['bubblewrap']
  if (missing.length === 0 && optional.length === 0) return
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
  if (isRoot && has('apt-get')) {
    log(`installing ${[...missing, ...optional].join(', ')} with apt-get`)
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
    if (run('apt-get', ['update'], { env }).ok) {
      if (run('apt-get', ['install', '-y', ...missing, ...optional], { env }).ok) return
      if (missing.length > 0 && run('apt-get', ['install', '-y', ...missing], { env }).ok) return
    }
  }
  if (missing.length === 0) {
    log('bubblewrap (bwrap) is not installed; the tests that need it skip')
    return
  }
  process.stderr.write(
    `\nThe tests need these system packages: ${missing.join(', ')}.\n` +
      `Install them (Debian/Ubuntu: sudo apt-get install -y ${missing.join(' ')}) and run npm test again.\n`,
  )
  process.stdout.write('0 passed, 1 failed\n')
  process.exit(1)
}

function ensureNodeModules() {
  if (fs.existsSync(path.join(root, 'node_modules', '.package-lock.json'))) return
  log('installing npm dependencies (npm ci)')
  if (!run('npm', ['ci']).ok) {
    process.stdout.write('0 passed, 1 failed\n')
    process.exit(1)
  }
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch {
    return undefined
  }
}

ensureSystemPackages()
ensureNodeModules()
fs.mkdirSync(results, { recursive: true })

let failedChecks = 0
for (const [name, script] of [
  ['lint', 'lint'],
  ['typecheck', 'typecheck'],
  ['format', 'format:check'],
  ['build', 'build'],
]) {
  log(name)
  if (!run('npm', ['run', '--silent', script]).ok) {
    failedChecks += 1
    log(`${name} FAILED`)
  }
}

const vitestReport = path.join(results, 'vitest.json')
const playwrightReport = path.join(results, 'playwright.json')
fs.rmSync(vitestReport, { force: true })
fs.rmSync(playwrightReport, { force: true })

log('unit and integration tests (vitest)')
const vitest = run(process.execPath, [
  path.join(root, 'node_modules', 'vitest', 'vitest.mjs'),
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${vitestReport}`,
])

log('end-to-end tests (playwright, Chromium)')
const playwright = run(
  process.execPath,
  [path.join(root, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', '--reporter=list,json'],
  {
    env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport },
  },
)

let passed = 0
let failed = failedChecks
let skipped = 0
const v = readJson(vitestReport)
if (v) {
  passed += v.numPassedTests
  failed += v.numFailedTests
  skipped += v.numPendingTests + (v.numTodoTests ?? 0)
  // A suite that failed to load has no tests to count but is a failure all the same.
  failed += v.testResults.filter((r) => r.status === 'failed' && r.assertionResults.length === 0).length
}
if (!v || (!vitest.ok && v.numFailedTests === 0)) failed += 1
// CI (.ci/run) also runs the sandbox suites as an unprivileged user; their counts join the summary.
if (process.env.STEPWISE_UNPRIVILEGED_REPORT) {
  const u = readJson(process.env.STEPWISE_UNPRIVILEGED_REPORT)
  if (u) {
    passed += u.numPassedTests
    failed += u.numFailedTests
    skipped += u.numPendingTests + (u.numTodoTests ?? 0)
    // A file that failed with no failed test: it did not load, or a hook failed (its tests count as skipped).
    failed += u.testResults.filter(
      (r) => r.status === 'failed' && !r.assertionResults.some((a) => a.status === 'failed'),
    ).length
  } else failed += 1
}
const p = readJson(playwrightReport)
if (p) {
  passed += p.stats.expected + p.stats.flaky
  failed += p.stats.unexpected
  skipped += p.stats.skipped
}
if (!p || (!playwright.ok && p.stats.unexpected === 0)) failed += 1

process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`)
process.exit(failed > 0 ? 1 : 0)
