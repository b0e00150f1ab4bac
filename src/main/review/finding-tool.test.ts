import { describe, expect, it } from 'vitest'
import type { Finding } from '../../shared/protocol'
import { parseToolCall } from '../tools/registry'
import { errorOf, makeContext, makeProject } from '../tools/test-support'
import { createReportFindingTool } from './finding-tool'

async function setup(checkLineBounds = true) {
  const root = makeProject({ 'src/app.ts': 'one\ntwo\nthree\n', '.env': 'K=v\n' })
  const reported: Finding[] = []
  const tool = createReportFindingTool({ checkLineBounds, onFinding: (f) => reported.push(f) })
  const ctx = await makeContext(root)
  /** Through the same parsing the agent loop uses, so coercion is covered too. */
  const call = async (args: object) => {
    const parsed = parseToolCall(tool, JSON.stringify(args))
    if (!parsed.ok) return { ok: false as const, error: parsed.error }
    return tool.run(parsed.input as never, ctx)
  }
  return { tool, reported, call }
}

const valid = {
  file: 'src/app.ts',
  line: 2,
  severity: 'high',
  category: 'bug',
  message: 'Off by one.',
  suggestion: 'Use <= instead of <.',
}

describe('report_finding', () => {
  it('records a valid finding once, forgiving strings for numbers and common synonyms', async () => {
    const { reported, call } = await setup()
    expect(await call(valid)).toEqual({
      ok: true,
      recorded: true,
      count: 1,
      note: 'Recorded. Continue the review; when you are done, answer with a short summary.',
    })
    expect(await call(valid)).toEqual({
      ok: true,
      recorded: false,
      note: 'This finding was already reported; it is recorded once.',
    })
    await call({
      file: './src/app.ts',
      line: '0',
      severity: 'Minor',
      category: 'style',
      message: ' Naming. ',
    })
    expect(reported).toEqual([
      {
        file: 'src/app.ts',
        line: 2,
        severity: 'high',
        category: 'bug',
        message: 'Off by one.',
        suggestion: 'Use <= instead of <.',
      },
      { file: 'src/app.ts', line: 0, severity: 'low', category: 'readability', message: 'Naming.' },
    ])
  })

  it('refuses files outside the project, denied or missing files, bad lines, severities and categories', async () => {
    const { reported, call } = await setup()
    expect(errorOf(await call({ ...valid, file: '../x.ts' }))).toMatch(/outside|project/)
    expect(errorOf(await call({ ...valid, file: '.env' }))).toMatch(/\.env/)
    expect(errorOf(await call({ ...valid, file: 'nope.ts' }))).toBe(
      '"nope.ts" does not exist. Report findings against files in the project (list_files shows them).',
    )
    expect(errorOf(await call({ ...valid, file: 'src' }))).toBe(
      '"src" is not a file; report findings against a file (line 0 for the whole file).',
    )
    expect(errorOf(await call({ ...valid, line: -1 }))).toMatch(
      /^Invalid arguments for report_finding: argument "line"/,
    )
    expect(errorOf(await call({ ...valid, line: 9 }))).toBe(
      '"src/app.ts" has 3 lines; line 9 is past its end. Read the file and give the line the problem is on (0 for the whole file).',
    )
    expect(errorOf(await call({ ...valid, severity: 'urgent' }))).toMatch(/argument "severity"/)
    expect(errorOf(await call({ ...valid, category: 'vibes' }))).toMatch(/argument "category"/)
    expect(errorOf(await call({ ...valid, message: '' }))).toMatch(/argument "message"/)
    expect(reported).toEqual([])
  })

  it('does not check lines against the working tree when reviewing a commit', async () => {
    const { reported, call } = await setup(false)
    expect((await call({ ...valid, line: 9 })).ok).toBe(true)
    expect(reported).toHaveLength(1)
  })
})
