import { describe, expect, it } from 'vitest'
import { describeRule, offeredRule, patternForWords, ruleLabel, rulesCover } from './approval-rules'
import type { ApprovalRule, ApprovalSubject, CommandPart, RulePattern } from './protocol'

const cmd = (parts: CommandPart[] | undefined, extra: Partial<ApprovalSubject & { kind: 'command' }> = {}) =>
  ({ kind: 'command', command: 'x', cwd: '/p', verdict: 'ask', parts, ...extra }) as ApprovalSubject
const asking = (...words: string[]): CommandPart => ({ words, allowed: false })
const allowed = (...words: string[]): CommandPart => ({ words, allowed: true })
const rule = (pattern: RulePattern, id = 1): ApprovalRule => ({
  id,
  scope: 'project',
  project: '/p',
  pattern,
  createdAt: 0,
})

describe('the rule an approval offers', () => {
  it('is the program and its subcommand; a script runner keeps the script; options and paths make it exact', () => {
    expect(patternForWords(['npm', 'test', '--', '--watch'])).toEqual({
      kind: 'command',
      words: ['npm', 'test'],
      exact: false,
    })
    expect(patternForWords(['cargo', 'build', '--release'])).toEqual({
      kind: 'command',
      words: ['cargo', 'build'],
      exact: false,
    })
    expect(patternForWords(['pnpm', 'run', 'lint:fix'])).toEqual({
      kind: 'command',
      words: ['pnpm', 'run', 'lint:fix'],
      exact: false,
    })
    // An interpreter with code or a script file is never widened to "python anything".
    expect(patternForWords(['python', '-c', 'print(1)'])).toEqual({
      kind: 'command',
      words: ['python', '-c', 'print(1)'],
      exact: true,
    })
    expect(patternForWords(['node', 'scripts/build.js'])).toEqual({
      kind: 'command',
      words: ['node', 'scripts/build.js'],
      exact: true,
    })
    expect(patternForWords(['make'])).toEqual({ kind: 'command', words: ['make'], exact: true })
  })

  it('is offered for one asking part, never for a denied, unconfined or unreadable line', () => {
    expect(offeredRule(cmd([asking('npm', 'test'), allowed('tail', '-5')]))).toEqual({
      kind: 'command',
      words: ['npm', 'test'],
      exact: false,
    })
    expect(offeredRule(cmd([asking('npm', 'test')], { verdict: 'deny' }))).toBeUndefined()
    expect(offeredRule(cmd([asking('npm', 'test')], { unconfined: 'no sandbox' }))).toBeUndefined()
    expect(offeredRule(cmd(undefined))).toBeUndefined()
    expect(offeredRule(cmd([asking('npm', 'test'), asking('make', 'deploy')]))).toBeUndefined()
    expect(offeredRule({ kind: 'mcp', server: 'gh', tool: 'create_issue', args: {} })).toEqual({
      kind: 'mcp',
      server: 'gh',
      tool: 'create_issue',
    })
    expect(
      offeredRule({ kind: 'file', path: 'a', change: 'modify', diff: '', before: '', after: '' }),
    ).toBeUndefined()
  })
})

describe('what a rule covers', () => {
  const npmTest = rule({ kind: 'command', words: ['npm', 'test'], exact: false })
  const exactMake = rule({ kind: 'command', words: ['make'], exact: true }, 2)

  it('every asking part must start with a rule’s words; allowed parts need none', () => {
    expect(rulesCover([npmTest], cmd([asking('npm', 'test', '--', 'a.test.ts'), allowed('tail')]))).toBe(
      npmTest,
    )
    expect(rulesCover([npmTest], cmd([asking('npm', 'test'), asking('curl', 'x')]))).toBeUndefined()
    expect(rulesCover([npmTest], cmd([asking('npm', 'tests')]))).toBeUndefined()
    expect(rulesCover([npmTest], cmd([asking('npm')]))).toBeUndefined()
    expect(rulesCover([exactMake], cmd([asking('make')]))).toBe(exactMake)
    expect(rulesCover([exactMake], cmd([asking('make', 'deploy')]))).toBeUndefined()
    expect(rulesCover([npmTest], cmd(undefined))).toBeUndefined()
  })

  it('an MCP rule names one tool of one server', () => {
    const gh = rule({ kind: 'mcp', server: 'gh', tool: 'create_issue' })
    expect(rulesCover([gh], { kind: 'mcp', server: 'gh', tool: 'create_issue', args: {} })).toBe(gh)
    expect(rulesCover([gh], { kind: 'mcp', server: 'gh', tool: 'delete_repo', args: {} })).toBeUndefined()
    expect(rulesCover([gh], { kind: 'mcp', server: 'other', tool: 'create_issue', args: {} })).toBeUndefined()
  })

  it('reads as a command prefix with a preview of what it matches', () => {
    expect(ruleLabel(npmTest.pattern)).toBe('npm test …')
    expect(ruleLabel(exactMake.pattern)).toBe('make')
    expect(ruleLabel({ kind: 'command', words: ['python', '-c', 'print(1)'], exact: true })).toBe(
      "python -c 'print(1)'",
    )
    expect(describeRule(npmTest.pattern)).toMatch(
      /^Runs `npm test` with any further arguments .*denied commands are still refused/,
    )
    expect(describeRule(exactMake.pattern)).toMatch(/^Runs exactly `make` without asking/)
  })
})
