import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { formatDiagnostic, parseDiagnostics } from './build-errors'
import { parseJsonReport, parseTestOutput, stripAnsi } from './failures'

/* Output captured from the real runners (paths rewritten to /home/dev/app), plus jest, go and surefire in their documented formats. */

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures')
const sample = (name: string) => fs.readFileSync(path.join(fixtures, name), 'utf8')
const root = '/home/dev/app'

const vitestFailures = [
  {
    name: 'math > adds numbers',
    message: 'AssertionError: expected 4 to be 3 // Object.is equality\n\n- Expected\n+ Received\n\n- 3\n+ 4',
    file: 'src/a.test.ts',
    line: 4,
  },
  { name: 'throws', message: 'Error: boom', file: 'src/a.test.ts', line: 10 },
]

describe('test output', () => {
  it('reads vitest text output (with its colours)', () => {
    expect(parseTestOutput('vitest', sample('vitest.txt'), root)).toEqual({
      passed: 1,
      failed: 2,
      skipped: 0,
      failures: vitestFailures,
    })
  })

  it('reads the vitest/jest JSON report', () => {
    expect(parseJsonReport(sample('vitest.json'), root)).toEqual({
      passed: 1,
      failed: 2,
      skipped: 0,
      failures: [
        { ...vitestFailures[0], message: 'AssertionError: expected 4 to be 3 // Object.is equality' },
        vitestFailures[1],
      ],
    })
    expect(parseJsonReport('not json', root)).toBeNull()
    expect(parseJsonReport('{"x":1}', root)).toBeNull()
  })

  it('reads jest text output', () => {
    expect(parseTestOutput('jest', sample('jest.txt'), root)).toEqual({
      passed: 1,
      failed: 1,
      skipped: 0,
      failures: [
        {
          name: 'math › adds numbers',
          message:
            'expect(received).toBe(expected) // Object.is equality\n\n    Expected: 3\n    Received: 4',
          file: 'src/math.test.js',
          line: 5,
        },
      ],
    })
  })

  it('reads node:test TAP and spec output alike', () => {
    const tap = parseTestOutput('node-test', sample('node-tap.txt'), root)
    expect(tap).toEqual({
      passed: 1,
      failed: 2,
      skipped: 0,
      failures: [
        {
          name: 'adds',
          message: 'Expected values to be strictly equal:\n\n2 !== 3',
          file: 'a.test.mjs',
          line: 3,
        },
        { name: 'inner fails', message: 'nope', file: 'a.test.mjs', line: 5 },
      ],
    })
    const spec = parseTestOutput('node-test', sample('node-spec.txt'), root)
    expect(spec?.failures.map((f) => [f.name, f.file, f.line])).toEqual([
      ['adds', 'a.test.mjs', 3],
      ['inner fails', 'a.test.mjs', 5],
    ])
    expect(spec?.failures[1].message).toBe('Error: nope')
  })

  it('reads go test, cargo test, pytest and surefire output', () => {
    expect(parseTestOutput('go', sample('go.txt'), root)?.failures[0]).toEqual({
      name: 'TestAdd',
      message: 'expected 3, got 4',
      file: 'math_test.go',
      line: 10,
    })
    expect(parseTestOutput('cargo', sample('cargo.txt'), root)).toEqual({
      passed: 1,
      failed: 2,
      skipped: 0,
      failures: [
        { name: 'tests::panics', message: 'boom here', file: 'src/lib.rs', line: 10 },
        {
          name: 'tests::adds',
          message: 'assertion `left == right` failed\n  left: 4\n right: 5',
          file: 'src/lib.rs',
          line: 6,
        },
      ],
    })
    expect(parseTestOutput('pytest', sample('pytest.txt'), root)).toEqual({
      passed: 1,
      failed: 2,
      skipped: 0,
      failures: [
        { name: 'test_add', message: 'assert (1 + 1) == 3', file: 'tests/test_a.py', line: 2 },
        { name: 'test_err', message: 'ValueError: bad value', file: 'tests/test_a.py', line: 8 },
      ],
    })
    expect(parseTestOutput('maven', sample('mvn.txt'), root)).toEqual({
      passed: 1,
      failed: 1,
      skipped: 0,
      failures: [
        {
          name: 'MathTest.adds',
          message: 'expected:<3> but was:<4>',
          file: 'src/test/java/com/ex/MathTest.java',
          line: 5,
        },
      ],
    })
  })

  it('recognises the runner from the output when the script is unknown', () => {
    expect(parseTestOutput('script', sample('pytest.txt'), root)?.failures[0].name).toBe('test_add')
    expect(parseTestOutput('script', sample('vitest.txt'), root)?.failures).toEqual(vitestFailures)
    expect(parseTestOutput('script', 'hello\nworld\n', root)).toBeNull()
  })
})

describe('build diagnostics', () => {
  it('reads tsc, gcc, go, rustc and eslint', () => {
    expect(parseDiagnostics(sample('tsc.txt'), root).map(formatDiagnostic)).toEqual([
      "src/x.ts:4:1: error TS2304: Cannot find name 'foo'.",
      "src/y.ts:1:7: error TS2322: Type 'string' is not assignable to type 'number'.",
    ])
    expect(parseDiagnostics(sample('gcc-go.txt'), root).map(formatDiagnostic)).toEqual([
      "c.c:1:21: error 'x' undeclared (first use in this function)",
      'main.go:5:2: error undefined: fmt.Printx',
    ])
    expect(parseDiagnostics(sample('rustc.txt'), root).map(formatDiagnostic)).toEqual([
      'src/main.rs:1:26: error[E0308]: mismatched types',
    ])
    expect(parseDiagnostics(sample('eslint.txt'), root)).toEqual([
      {
        file: 'src/util.ts',
        line: 3,
        column: 7,
        severity: 'error',
        message: "'unused' is assigned a value but never used (@typescript-eslint/no-unused-vars)",
      },
      {
        file: 'src/util.ts',
        line: 10,
        column: 1,
        severity: 'warning',
        message: 'Unexpected console statement (no-console)',
      },
    ])
  })

  it('strips terminal colours', () => {
    expect(stripAnsi('\x1b[31mred\x1b[39m plain')).toBe('red plain')
  })
})
