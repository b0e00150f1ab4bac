import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { commandSettingsFrom } from '../sandboxing/settings'
import { verifyProject } from '../verify/verify'
import { execTools, runBuildTool, runCommandTool, runLintTool, runTestsTool } from './exec'
import { parseToolCall, toolSpecs } from './registry'
import { makeContext, makeProject } from './test-support'
import type { ActionTool, ToolContext, ToolResult } from './types'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..')

async function planOf(tool: ActionTool, input: unknown, ctx: ToolContext) {
  const plan = await tool.plan(tool.input.parse(input), ctx)
  if (!plan.ok) throw new Error(`expected a plan, got ${plan.error}`)
  const { ok: _ok, ...fields } = plan
  return fields
}

async function run(tool: ActionTool, input: unknown, ctx: ToolContext) {
  const plan = await planOf(tool, input, ctx)
  const streamed: string[] = []
  const result = (await tool.execute(plan, ctx, { onOutput: (_s, t) => streamed.push(t) })) as ToolResult &
    Record<string, unknown>
  return { plan, result, streamed: streamed.join('') }
}

const pkg = (scripts: Record<string, string>) => JSON.stringify({ name: 'demo', type: 'module', scripts })

const nodeTests = {
  'package.json': pkg({ test: 'node --test' }),
  'test/math.test.js': [
    "import test from 'node:test'",
    "import assert from 'node:assert'",
    "test('adds numbers', () => { assert.strictEqual(1 + 2, 4) })",
    "test('subtracts', () => { assert.strictEqual(2 - 1, 1) })",
    '',
  ].join('\n'),
}

describe('the exec family', () => {
  it('declares its tools with the documented arguments', () => {
    const specs = toolSpecs(execTools).map((s) => [
      s.name,
      Object.keys((s.parameters.properties ?? {}) as object),
    ])
    expect(specs).toEqual([
      ['run_command', ['command', 'timeout_s']],
      ['run_tests', ['path', 'filter']],
      ['run_build', []],
      ['run_lint', ['path']],
    ])
    expect(parseToolCall(runCommandTool, '{"command":"ls","timeout_s":"30"}')).toEqual({
      ok: true,
      input: { command: 'ls', timeout_s: 30 },
    })
  })
})

describe('run_command', () => {
  it('plans with the policy verdict, the exact command line and the project folder', async () => {
    const ctx = await makeContext(makeProject({ 'a.txt': 'A' }))
    expect(await planOf(runCommandTool, { command: 'ls -la' }, ctx)).toEqual({
      summary: 'run `ls -la`',
      command: { command: 'ls -la', cwd: ctx.root },
      verdict: 'allow',
      reason: undefined,
      data: { command: 'ls -la', timeoutS: 120, prepared: undefined },
    })
    const denied = await planOf(runCommandTool, { command: 'make && rm -rf build' }, ctx)
    expect([denied.verdict, denied.reason]).toEqual([
      'deny',
      '`rm -rf build` in `make && rm -rf build` is on the deny list (rm -rf: recursive forced delete)',
    ])
    const asked = await planOf(runCommandTool, { command: 'docker ps', timeout_s: '5' }, ctx)
    expect([asked.verdict, (asked.data as { timeoutS: number }).timeoutS]).toEqual(['ask', 5])
    const custom = { ...ctx, commands: commandSettingsFrom({ allow: ['docker ps'] }) }
    expect((await planOf(runCommandTool, { command: 'docker ps' }, custom)).verdict).toBe('allow')
    expect(await runCommandTool.plan({ command: '  ' }, ctx)).toEqual({
      ok: false,
      error: 'command is empty; pass the command line to run.',
    })
  })

  it('runs in the project root and streams the output', async () => {
    const ctx = await makeContext(makeProject({ 'a.txt': 'A' }))
    const { result, streamed } = await run(runCommandTool, { command: 'cat a.txt; echo; pwd' }, ctx)
    expect({ ...result, duration_ms: 0 }).toEqual({
      ok: true,
      exit_code: 0,
      duration_ms: 0,
      output: `A\n${ctx.root}\n`,
    })
    expect(streamed).toBe(`A\n${ctx.root}\n`)
  })

  it('returns a failure with its output and what to do', async () => {
    const ctx = await makeContext(makeProject({}))
    const { result } = await run(runCommandTool, { command: 'echo partial; exit 2' }, ctx)
    expect({ ...result, duration_ms: 0 }).toEqual({
      ok: false,
      error:
        '`echo partial; exit 2` exited with code 2. The output is included; read it before trying again.',
      exit_code: 2,
      duration_ms: 0,
      output: 'partial\n',
    })
  })

  it('stops a command at its timeout', async () => {
    const ctx = await makeContext(makeProject({}))
    const { result } = await run(runCommandTool, { command: 'echo waiting; sleep 30', timeout_s: 1 }, ctx)
    expect([result.ok, result.timed_out, result.output]).toEqual([false, true, 'waiting\n'])
    expect(result.ok === false && result.error).toMatch(
      /^`echo waiting; sleep 30` did not finish within 1 s and was stopped/,
    )
  })
})

describe('run_tests', () => {
  it('finds nothing to run and says what it looked for', async () => {
    const ctx = await makeContext(makeProject({ 'README.md': '#' }))
    const plan = await runTestsTool.plan({}, ctx)
    expect(plan).toEqual({
      ok: false,
      error: expect.stringMatching(/^No test command found\. Looked for package\.json scripts/),
    })
  })

  it('runs node:test and returns each failure with file and line', async () => {
    const ctx = await makeContext(makeProject(nodeTests))
    const { plan, result } = await run(runTestsTool, {}, ctx)
    expect([plan.verdict, plan.command?.command]).toEqual(['allow', 'npm test'])
    expect(result.ok).toBe(false)
    expect(result.ok === false && result.error).toBe(
      '1 test failed: test/math.test.js:3 adds numbers: Expected values to be strictly equal:',
    )
    expect([result.passed, result.failed, result.failures]).toEqual([
      1,
      1,
      [
        {
          name: 'adds numbers',
          message: 'Expected values to be strictly equal:\n\n3 !== 4',
          file: 'test/math.test.js',
          line: 3,
        },
      ],
    ])
    expect(result.output).toContain('not ok 1 - adds numbers')
  })

  it('narrows to a test name', async () => {
    const ctx = await makeContext(makeProject(nodeTests))
    const { plan, result } = await run(runTestsTool, { filter: 'subtracts' }, ctx)
    expect(plan.command?.command).toBe('npm test -- --test-name-pattern=subtracts')
    expect([result.ok, result.passed, result.failed]).toEqual([true, 1, 0])
  })

  it('reads vitest through its JSON reporter, and leaves no report file behind', async () => {
    const root = makeProject({
      'package.json': pkg({ test: 'vitest run' }),
      'src/a.test.ts':
        "import { it, expect } from 'vitest'\nit('adds', () => {\n  expect(1 + 1).toBe(3)\n})\nit('ok', () => {})\n",
    })
    fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(root, 'node_modules'))
    // The linked node_modules lives in this checkout, which may itself be under /tmp — and the
    // sandbox hides /tmp. This test is about reading the report, so it runs unsandboxed.
    const ctx = { ...(await makeContext(root)), commands: commandSettingsFrom({ sandbox: 'off' }) }
    const { plan, result } = await run(runTestsTool, { path: 'src/a.test.ts' }, ctx)
    expect(plan.command?.command).toMatch(
      /^npm test -- src\/a\.test\.ts --reporter=default --reporter=json --outputFile\.json=\.stepwise-test-report-\d+-\d+\.json$/,
    )
    expect([result.passed, result.failed, result.failures]).toEqual([
      1,
      1,
      [
        {
          name: 'adds',
          message: 'AssertionError: expected 2 to be 3 // Object.is equality',
          file: 'src/a.test.ts',
          line: 3,
        },
      ],
    ])
    expect(fs.readdirSync(root).filter((f) => f.startsWith('.stepwise-test-report'))).toEqual([])
  })

  it('stops a test runner that never exits', async () => {
    const root = makeProject({ 'package.json': pkg({ test: 'node -e "setInterval(() => {}, 1000)"' }) })
    const ctx = { ...(await makeContext(root)), commands: commandSettingsFrom({ buildTimeoutS: 1 }) }
    const { result } = await run(runTestsTool, {}, ctx)
    expect([result.ok, result.timed_out]).toEqual([false, true])
    expect(result.ok === false && result.error).toMatch(/^`npm test` did not finish within 1 s/)
  })
})

const failingBuild = {
  'package.json': pkg({ build: 'node build.js', lint: 'node lint.js', test: 'node --test' }),
  'build.js': 'console.log("src/x.ts(4,1): error TS2304: Cannot find name \'foo\'."); process.exit(2)\n',
  'lint.js':
    "console.log(process.cwd() + '/src/x.ts\\n  3:7  error  \\'a\\' is never used  no-unused-vars\\n'); process.exit(1)\n",
}

describe('run_build and run_lint', () => {
  it('returns compiler errors with file and line', async () => {
    const ctx = await makeContext(makeProject(failingBuild))
    const { plan, result } = await run(runBuildTool, {}, ctx)
    expect([plan.verdict, plan.command?.command]).toEqual(['allow', 'npm run build'])
    expect([result.ok, result.errors]).toEqual([
      false,
      ["src/x.ts:4:1: error TS2304: Cannot find name 'foo'."],
    ])
    expect(result.ok === false && result.error).toBe(
      "`npm run build` exited with code 2. 1 error; the first: src/x.ts:4:1: error TS2304: Cannot find name 'foo'.",
    )
  })

  it('returns lint problems', async () => {
    const ctx = await makeContext(makeProject(failingBuild))
    const { result } = await run(runLintTool, {}, ctx)
    expect([result.ok, result.problems]).toEqual([
      false,
      ["src/x.ts:3:7: error 'a' is never used (no-unused-vars)"],
    ])
  })
})

describe('verifyProject', () => {
  it('is green when build and tests pass', async () => {
    const ctx = await makeContext(
      makeProject({
        'package.json': pkg({ build: 'node -e 0', test: 'node --test' }),
        'test/a.test.js': "import test from 'node:test'\ntest('fine', () => {})\n",
      }),
    )
    const result = await verifyProject(ctx)
    expect([result.passed, result.failures, result.build?.ok, result.tests?.report?.passed]).toEqual([
      true,
      [],
      true,
      1,
    ])
  })

  it('lists failing tests one per line', async () => {
    const ctx = await makeContext(makeProject(nodeTests))
    const result = await verifyProject(ctx)
    expect([result.passed, result.failures]).toEqual([
      false,
      ['test/math.test.js:3 adds numbers: Expected values to be strictly equal:'],
    ])
  })

  it('stops at a failing build', async () => {
    const ctx = await makeContext(makeProject({ ...nodeTests, ...failingBuild }))
    const result = await verifyProject(ctx)
    expect([result.passed, result.failures, result.tests, result.note]).toEqual([
      false,
      ["build: src/x.ts:4:1: error TS2304: Cannot find name 'foo'."],
      undefined,
      'The tests were not run because the build failed.',
    ])
  })

  it('passes with a note when there is nothing to run', async () => {
    const ctx = await makeContext(makeProject({ 'README.md': '#' }))
    expect(await verifyProject(ctx)).toEqual({
      passed: true,
      failures: [],
      note: 'No build or test command was found, so nothing was verified.',
    })
  })
})
