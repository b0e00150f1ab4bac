import { z } from 'zod'
import path from 'node:path'
import type { RunnerKind } from './detect'
import { escapeRegExp } from '../../shared/regexp'

/*
 * Test results read from what the runners print (best effort): counts and, for
 * each failure, its name, the first lines of its message, and where it failed.
 * The raw (truncated) output always goes to the model as well, so a runner this
 * does not understand costs structure, never information.
 */

export interface TestFailure {
  name: string
  message: string
  file?: string
  line?: number
}

export interface TestReport {
  passed: number
  failed: number
  skipped?: number
  failures: TestFailure[]
}

export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07/g, '')
}

/** Paths under the root become root-relative POSIX paths; others stay as they are. */
export function relativeTo(root: string | undefined, file: string): string {
  const clean = file.replace(/^file:\/\//, '')
  if (!root || !path.isAbsolute(clean)) return clean.replace(/^\.\//, '')
  const rel = path.relative(root, clean)
  return rel.startsWith('..') ? clean : rel.split(path.sep).join('/')
}

/** The first few lines of a message, without stack frames. */
function firstLines(text: string, max = 6): string {
  const lines = text.split('\n').filter((l) => !/^\s*at\s/.test(l))
  const kept = lines.slice(0, max).join('\n').trim()
  return lines.length > max ? `${kept}\n…` : kept
}

/** Reads a runner's output; for a runner it does not know, tries each format in turn. */
export function parseTestOutput(kind: RunnerKind, output: string, root?: string): TestReport | null {
  const text = stripAnsi(output).replace(/\r\n/g, '\n')
  const byKind: Partial<Record<RunnerKind, (t: string, r?: string) => TestReport | null>> = {
    vitest: parseVitestText,
    jest: parseJestText,
    'node-test': parseNodeTest,
    go: parseGoTest,
    cargo: parseCargoTest,
    pytest: parsePytest,
    maven: parseSurefire,
  }
  const own = byKind[kind]
  if (own) return own(text, root)
  for (const parse of [
    parseVitestText,
    parseJestText,
    parseNodeTest,
    parsePytest,
    parseCargoTest,
    parseGoTest,
    parseSurefire,
  ]) {
    const report = parse(text, root)
    if (report) return report
  }
  return null
}

// ── JSON reports (vitest --reporter=json, jest --json: the same shape) ───────

const jsonAssertion = z.object({
  ancestorTitles: z.array(z.string()).optional(),
  title: z.string().optional(),
  fullName: z.string().optional(),
  status: z.string().optional(),
  failureMessages: z.array(z.string()).optional(),
  location: z.object({ line: z.number().optional() }).nullish(),
})

/** What the reports hold that we read; anything else in them is left alone. */
const jsonReport = z.object({
  numPassedTests: z.number().optional(),
  numFailedTests: z.number().optional(),
  numPendingTests: z.number().optional(),
  numTodoTests: z.number().optional(),
  testResults: z.array(
    z.object({
      name: z.string().optional(),
      message: z.string().optional(),
      assertionResults: z.array(jsonAssertion).optional(),
    }),
  ),
})

export function parseJsonReport(json: string, root?: string): TestReport | null {
  let parsed
  try {
    parsed = jsonReport.safeParse(JSON.parse(json))
  } catch {
    return null
  }
  if (!parsed.success) return null
  const report = parsed.data
  const failures: TestFailure[] = []
  for (const file of report.testResults) {
    const abs = file.name ?? ''
    const rel = relativeTo(root, abs)
    const failed = (file.assertionResults ?? []).filter((a) => a.status === 'failed')
    for (const a of failed) {
      const raw = a.failureMessages?.join('\n') ?? ''
      failures.push({
        name: [...(a.ancestorTitles ?? []), a.title ?? a.fullName ?? '?'].join(' > '),
        message: firstLines(stripAnsi(raw)),
        file: rel || undefined,
        line: a.location?.line ?? lineInStack(raw, abs),
      })
    }
    // A file that failed to load has no assertions, only a message.
    if (failed.length === 0 && file.message)
      failures.push({
        name: rel || 'test file',
        message: firstLines(stripAnsi(file.message)),
        file: rel || undefined,
      })
  }
  return {
    passed: report.numPassedTests ?? 0,
    failed: Math.max(report.numFailedTests ?? 0, failures.length),
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
    failures,
  }
}

function lineInStack(stack: string, file: string): number | undefined {
  if (!file) return undefined
  const escaped = escapeRegExp(file)
  const m = new RegExp(`${escaped}:(\\d+):\\d+`).exec(stack)
  return m ? Number(m[1]) : undefined
}

// ── vitest (default reporter) ────────────────────────────────────────────────

function parseVitestText(text: string, root?: string): TestReport | null {
  const summary = /^\s*Tests\s+(.*\(\d+\))\s*$/m.exec(text)
  if (!summary || !/Test Files/.test(text)) return null
  const count = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(summary[1])?.[1] ?? 0)
  const failures: TestFailure[] = []
  const blocks = text.split(/^\s*FAIL\s+/m).slice(1)
  for (const block of blocks) {
    const [header, ...rest] = block.split('\n')
    const parts = header.split(' > ').map((s) => s.trim())
    const file = parts[0]
    const body = rest.join('\n').split(/^⎯{3,}/m)[0]
    const where = /❯\s+([^\s:]+):(\d+):\d+/.exec(body)
    const message = firstLines(body.replace(/^\s*❯[\s\S]*$/m, ''), 8)
    failures.push({
      name: parts.slice(1).join(' > ') || file,
      message,
      file: relativeTo(root, where?.[1] ?? file),
      line: where ? Number(where[2]) : undefined,
    })
  }
  return { passed: count('passed'), failed: count('failed'), skipped: count('skipped'), failures }
}

// ── jest (default reporter) ──────────────────────────────────────────────────

function parseJestText(text: string, root?: string): TestReport | null {
  const summary = /^Tests:\s+(.*)$/m.exec(text)
  if (!summary) return null
  const count = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(summary[1])?.[1] ?? 0)
  const failures: TestFailure[] = []
  for (const m of text.matchAll(/^\s*● (.+?)\n\n([\s\S]*?)(?=^\s*● |^Test Suites:|$(?![\s\S]))/gm)) {
    const body = m[2]
    const where = /\(([^()\s]+\.[jt]sx?):(\d+):\d+\)|^\s+at .*?([^\s()]+\.[jt]sx?):(\d+):\d+/m.exec(body)
    failures.push({
      name: m[1].trim(),
      message: firstLines(body.replace(/^\s*>?\s*\d+ \|[\s\S]*$/m, '')),
      file: where ? relativeTo(root, where[1] ?? where[3]) : undefined,
      line: where ? Number(where[2] ?? where[4]) : undefined,
    })
  }
  return { passed: count('passed'), failed: count('failed'), skipped: count('skipped'), failures }
}

// ── node:test (TAP, the default when not on a terminal in Node 20; and spec) ─

function parseNodeTest(text: string, root?: string): TestReport | null {
  const pass = /^(?:# |ℹ )pass (\d+)/m.exec(text)
  const fail = /^(?:# |ℹ )fail (\d+)/m.exec(text)
  if (!pass || !fail) return null
  const skipped = Number(/^(?:# |ℹ )skipped (\d+)/m.exec(text)?.[1] ?? 0)
  const failures: TestFailure[] = []
  if (/^TAP version/m.test(text)) {
    const re = /^(\s*)not ok \d+ - (.+)\n\1 {2}---\n([\s\S]*?)\n\1 {2}\.\.\./gm
    for (const m of text.matchAll(re)) {
      const yaml = m[3]
      // A suite fails because its tests did; they are listed already.
      if (/failureType: 'subtestsFailed'/.test(yaml)) continue
      const location = /location: '(.+):(\d+):\d+'/.exec(yaml)
      const error = /error: \|-\n([\s\S]*?)\n\s*\w+:/.exec(yaml)?.[1] ?? /error: '(.*)'/.exec(yaml)?.[1] ?? ''
      failures.push({
        name: m[2].trim(),
        message: firstLines(
          error
            .split('\n')
            .map((l) => l.trim())
            .join('\n'),
        ),
        file: location ? relativeTo(root, location[1]) : undefined,
        line: location ? Number(location[2]) : undefined,
      })
    }
  } else {
    const section = text.split(/^✖ failing tests:\s*$/m)[1] ?? ''
    for (const m of section.matchAll(
      /^test at (.+):(\d+):\d+\n✖ (.+?)(?: \([\d.]+m?s\))?\n([\s\S]*?)(?=^test at |$(?![\s\S]))/gm,
    )) {
      failures.push({
        name: m[3].trim(),
        message: firstLines(
          m[4]
            .replace(/\{[\s\S]*$/, '')
            .split('\n')
            .map((l) => l.trim())
            .join('\n'),
        ),
        file: relativeTo(root, m[1]),
        line: Number(m[2]),
      })
    }
  }
  return { passed: Number(pass[1]), failed: Number(fail[1]), skipped, failures }
}

// ── go test ──────────────────────────────────────────────────────────────────

function parseGoTest(text: string, root?: string): TestReport | null {
  if (!/^(--- FAIL|--- PASS|ok\s+\S+|FAIL\s+\S+|PASS$)/m.test(text)) return null
  const failures: TestFailure[] = []
  for (const m of text.matchAll(/^(\s*)--- FAIL: (\S+) \([\d.]+s\)\n((?:\1 {4}.*\n?)*)/gm)) {
    const body = m[3]
    const where = /^\s*([\w./-]+\.go):(\d+): ?(.*)$/m.exec(body)
    const message = body
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .join('\n')
      .replace(/^[\w./-]+\.go:\d+: ?/, '')
    failures.push({
      name: m[2],
      message: firstLines(message),
      file: where ? relativeTo(root, where[1]) : undefined,
      line: where ? Number(where[2]) : undefined,
    })
  }
  const passed = [...text.matchAll(/^\s*--- PASS: /gm)].length
  const skipped = [...text.matchAll(/^\s*--- SKIP: /gm)].length
  // Subtests fail their parent too; count what was listed.
  return { passed, failed: failures.length, skipped, failures }
}

// ── cargo test ───────────────────────────────────────────────────────────────

function parseCargoTest(text: string, root?: string): TestReport | null {
  const results = [...text.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/gm)]
  if (results.length === 0) return null
  const sum = (i: number) => results.reduce((n, m) => n + Number(m[i]), 0)
  const failures: TestFailure[] = []
  for (const m of text.matchAll(
    /^---- (\S+) stdout ----\n([\s\S]*?)(?=^---- |^failures:$|^test result:)/gm,
  )) {
    const body = m[2]
    const panic = /panicked at ([^:\s]+):(\d+):\d+:\n([\s\S]*?)(?:\nstack backtrace:|\nnote:|$)/.exec(body)
    failures.push({
      name: m[1],
      message: firstLines(panic ? panic[3] : body),
      file: panic ? relativeTo(root, panic[1]) : undefined,
      line: panic ? Number(panic[2]) : undefined,
    })
  }
  return { passed: sum(1), failed: sum(2), skipped: sum(3), failures }
}

// ── pytest ───────────────────────────────────────────────────────────────────

function parsePytest(text: string, root?: string): TestReport | null {
  const summary = /^=+ (.*\b(?:passed|failed|error|errors|no tests ran)\b.*) in [\d.]+s.*=+$/m.exec(text)
  if (!summary) return null
  const count = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(summary[1])?.[1] ?? 0)
  const failures: TestFailure[] = []
  for (const m of text.matchAll(/^(FAILED|ERROR) (\S+?)(?:::(\S+))?(?: - (.*))?$/gm)) {
    const file = m[2]
    const name = m[3] ?? file
    const escaped = escapeRegExp(m[3] ?? '').replace(/::/g, '\\.')
    const section = new RegExp(`^_+ ${escaped} _+$([\\s\\S]*?)(?=^_{3,} |^=+ )`, 'm').exec(text)?.[1] ?? ''
    const where = new RegExp(`^${escapeRegExp(file)}:(\\d+):`, 'm').exec(section)
    const details = section
      .split('\n')
      .filter((l) => l.startsWith('E '))
      .map((l) => l.slice(1).trim())
      .join('\n')
    failures.push({
      name,
      message: firstLines(details || (m[4] ?? m[1])),
      file: relativeTo(root, file),
      line: where ? Number(where[1]) : undefined,
    })
  }
  return {
    passed: count('passed'),
    failed: count('failed') + count('error') + count('errors'),
    skipped: count('skipped'),
    failures,
  }
}

// ── maven surefire ───────────────────────────────────────────────────────────

function parseSurefire(text: string): TestReport | null {
  const clean = text.replace(/^\[(?:INFO|ERROR|WARNING)\] ?/gm, '')
  const totals = [
    ...clean.matchAll(/^Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)\s*$/gm),
  ].at(-1)
  if (!totals) return null
  const failures: TestFailure[] = []
  const results = clean.split(/^Results:\s*$/m)[1] ?? ''
  for (const m of results.matchAll(/^ {2}(\w[\w$]*)\.(\w+):(\d+) (.*)$/gm)) {
    const running = new RegExp(`^Running ([\\w.]*\\b${m[1]})$`, 'm').exec(clean)?.[1]
    const file = running ? `src/test/java/${running.replace(/\./g, '/')}.java` : `${m[1]}.java`
    failures.push({ name: `${m[1]}.${m[2]}`, message: m[4].trim(), file, line: Number(m[3]) })
  }
  const [, run, failed, errors, skipped] = totals.map(Number)
  return { passed: run - failed - errors - skipped, failed: failed + errors, skipped, failures }
}
