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

const checks = []
for (const [name, script] of [
  ['lint', 'lint'],
  ['typecheck', 'typecheck'],
  ['format', 'format:check'],
  ['build', 'build'],
]) {
  log(name)
  const ok = run('npm', ['run', '--silent', script]).ok
  if (!ok) log(`${name} FAILED`)
  checks.push([name, ok])
}

const vitestReport = path.join(results, 'vitest.json')
const vitestErrors = path.join(results, 'vitest-errors.json')
const playwrightReport = path.join(results, 'playwright.json')
for (const file of [vitestReport, vitestErrors, playwrightReport]) fs.rmSync(file, { force: true })

log('unit and integration tests (vitest)')
const vitest = run(
  process.execPath,
  [
    path.join(root, 'node_modules', 'vitest', 'vitest.mjs'),
    'run',
    '--reporter=default',
    '--reporter=json',
    '--reporter=./scripts/vitest-errors.mjs',
    `--outputFile.json=${vitestReport}`,
  ],
  { env: { ...process.env, STEPWISE_VITEST_ERRORS: vitestErrors } },
)

log('end-to-end tests (playwright, Chromium)')
const playwright = run(
  process.execPath,
  [path.join(root, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', '--reporter=list,json'],
  {
    env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport },
  },
)

let passed = 0
let skipped = 0
/** What failed, one line each, printed above the summary: a red run's last lines say why. */
const whatFailed = []
for (const [name, ok] of checks) if (!ok) whatFailed.push(`${name} failed (its output is above)`)

/** Counts one Vitest run's JSON report (and its reporter's errors file) into the summary. */
function countVitest(label, report, errorsFile, exit) {
  const before = whatFailed.length
  const v = readJson(report)
  if (!v) {
    whatFailed.push(`${label}: no report (${exit?.ok === false ? `exit status ${exit.status}` : 'missing'})`)
    return
  }
  passed += v.numPassedTests
  skipped += v.numPendingTests + (v.numTodoTests ?? 0)
  const errors = readJson(errorsFile) ?? []
  for (const file of v.testResults) {
    const name = path.relative(root, file.name)
    const failedTests = file.assertionResults.filter((a) => a.status === 'failed')
    for (const test of failedTests) whatFailed.push(`${label}: ${name} › ${test.fullName}`)
    // A file that failed with no failed test: it did not load, or a hook failed (its tests may
    // count as passed or skipped). Failed all the same.
    if (file.status === 'failed' && failedTests.length === 0) {
      const own = errors.filter((e) => e.file === name).map((e) => `${e.where}: ${e.error}`)
      const why = own.length > 0 ? own.join('; ') : `${name}: ${file.message.split('\n')[0] || 'failed'}`
      whatFailed.push(`${label}: ${why}`)
    }
  }
  // Errors no test owns (an unhandled rejection, a worker that died) fail the run too.
  for (const { file, where, error } of errors)
    if (file === null) whatFailed.push(`${label}: ${where}: ${error}`)
  if (exit && !exit.ok && whatFailed.length === before) {
    whatFailed.push(
      `${label}: exited with status ${exit.status} though no test failed (see its output above)`,
    )
  }
}

countVitest('vitest', vitestReport, vitestErrors, vitest)
// CI (.ci/run) also runs the sandbox suites as an unprivileged user; their counts join the summary.
const unprivileged = process.env.STEPWISE_UNPRIVILEGED_REPORT
if (unprivileged)
  countVitest('vitest (unprivileged)', unprivileged, unprivileged.replace(/\.json$/, '-errors.json'))

const p = readJson(playwrightReport)
if (p) {
  passed += p.stats.expected + p.stats.flaky
  skipped += p.stats.skipped
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status === 'unexpected')
          whatFailed.push(`playwright: ${spec.file}:${spec.line} › ${spec.title}`)
      }
    }
    for (const child of suite.suites ?? []) walk(child)
  }
  for (const suite of p.suites ?? []) walk(suite)
}
if (!p) whatFailed.push('playwright: no report')
else if (!playwright.ok && p.stats.unexpected === 0) {
  whatFailed.push(
    `playwright: exited with status ${playwright.status} though no spec failed (see its output above)`,
  )
}

const failed = whatFailed.length
if (failed > 0) log(`what failed:\n${whatFailed.map((line) => `  - ${line}`).join('\n')}`)
process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`)
process.exit(failed > 0 ? 1 : 0)
