import { describe, expect, it } from 'vitest'
import type { ApprovalPolicy, ApprovalRule, ApprovalSubject, RulePattern } from '../../shared/protocol'
import { decide, NO_GRANTS, type Grants } from './decide'

/*
 * The approval decision as a table: policy × subject × grants → run | ask | refuse. Each row is
 * one case; the columns are the four policies in the order below.
 */

const POLICIES: ApprovalPolicy[] = ['ask', 'auto-edit', 'full-auto', 'read-only']

const file = (path: string, agentFile = false): ApprovalSubject => ({
  kind: 'file',
  path,
  change: 'modify',
  diff: '',
  before: 'a',
  after: 'b',
  ...(agentFile ? { agentFile } : {}),
})
const command = (
  verdict: 'allow' | 'ask' | 'deny',
  words: string[][] | undefined,
  extra: { unconfined?: string } = {},
): ApprovalSubject => ({
  kind: 'command',
  command: (words ?? [['x']]).map((w) => w.join(' ')).join(' | '),
  cwd: '/p',
  verdict,
  ...(verdict === 'deny' ? { reason: 'on the deny list' } : {}),
  ...(words ? { parts: words.map((w) => ({ words: w, allowed: verdict === 'allow' })) } : {}),
  ...extra,
})
const mcp = (readOnly = false): ApprovalSubject => ({
  kind: 'mcp',
  server: 'gh',
  tool: 'create_issue',
  args: {},
  ...(readOnly ? { readOnly } : {}),
})
const conflict: ApprovalSubject = { kind: 'conflict', path: 'a.txt', message: 'changed on disk' }

const rule = (pattern: RulePattern): ApprovalRule => ({
  id: 1,
  scope: 'session',
  sessionId: 's',
  project: '/p',
  pattern,
  createdAt: 0,
})
const npmTest = rule({ kind: 'command', words: ['npm', 'test'], exact: false })
const rmRule = rule({ kind: 'command', words: ['rm'], exact: false })
const ghRule = rule({ kind: 'mcp', server: 'gh', tool: 'create_issue' })
const grants = (g: Partial<Grants>): Grants => ({ ...NO_GRANTS, ...g })

type Row = [
  name: string,
  subject: ApprovalSubject,
  grants: Grants,
  expected: [string, string, string, string],
]

const TABLE: Row[] = [
  //                                                                    ask       auto-edit  full-auto  read-only
  ['a file change', file('a.ts'), NO_GRANTS, ['ask', 'run', 'run', 'refuse']],
  [
    'a file change, "always" for files',
    file('a.ts'),
    grants({ fileChanges: true }),
    ['run', 'run', 'run', 'refuse'],
  ],
  ['an agent file', file('AGENTS.md', true), NO_GRANTS, ['ask', 'ask', 'run', 'refuse']],
  [
    'an agent file, "always" for files',
    file('.vscode/tasks.json', true),
    grants({ fileChanges: true }),
    ['ask', 'ask', 'run', 'refuse'],
  ],
  ['an allowed command', command('allow', [['ls']]), NO_GRANTS, ['run', 'run', 'run', 'refuse']],
  ['an asking command', command('ask', [['npm', 'test']]), NO_GRANTS, ['ask', 'ask', 'run', 'refuse']],
  [
    'an asking command a rule covers',
    command('ask', [['npm', 'test', '--', 'a.test.ts']]),
    grants({ rules: [npmTest] }),
    ['run', 'run', 'run', 'refuse'],
  ],
  [
    'another program, same rule',
    command('ask', [['npm', 'publish']]),
    grants({ rules: [npmTest] }),
    ['ask', 'ask', 'run', 'refuse'],
  ],
  [
    'a line with unknown words, same rule',
    command('ask', undefined),
    grants({ rules: [npmTest] }),
    ['ask', 'ask', 'run', 'refuse'],
  ],
  [
    'a denied command',
    command('deny', [['rm', '-rf', 'x']]),
    NO_GRANTS,
    ['refuse', 'refuse', 'refuse', 'refuse'],
  ],
  // The deny list wins over every grant: a rule never makes a denied command run.
  [
    'a denied command a rule would cover',
    command('deny', [['rm', '-rf', 'x']]),
    grants({ rules: [rmRule], fileChanges: true }),
    ['refuse', 'refuse', 'refuse', 'refuse'],
  ],
  [
    'an unconfined command',
    command('ask', [['make']], { unconfined: 'no sandbox' }),
    NO_GRANTS,
    ['ask', 'refuse', 'refuse', 'refuse'],
  ],
  [
    'an unconfined command a rule covers',
    command('ask', [['make']], { unconfined: 'no sandbox' }),
    grants({ rules: [rule({ kind: 'command', words: ['make'], exact: true })] }),
    ['run', 'refuse', 'refuse', 'refuse'],
  ],
  ['an MCP call', mcp(), NO_GRANTS, ['ask', 'ask', 'run', 'refuse']],
  [
    'an MCP call the settings allow',
    mcp(),
    grants({ mcpAutoEdit: () => true }),
    ['ask', 'run', 'run', 'refuse'],
  ],
  ['an MCP call a rule names', mcp(), grants({ rules: [ghRule] }), ['run', 'run', 'run', 'refuse']],
  ['a read-only MCP tool', mcp(true), NO_GRANTS, ['ask', 'ask', 'run', 'ask']],
  [
    'a read-only MCP tool the settings allow',
    mcp(true),
    grants({ mcpAutoEdit: () => true }),
    ['ask', 'run', 'run', 'run'],
  ],
  ['an edit conflict', conflict, NO_GRANTS, ['ask', 'refuse', 'refuse', 'refuse']],
]

describe('decide(policy, subject, grants)', () => {
  for (const [name, subject, granted, expected] of TABLE) {
    it(`${name}: ${POLICIES.map((p, i) => `${p} → ${expected[i]}`).join(', ')}`, () => {
      expect(POLICIES.map((p) => decide(p, subject, granted).action)).toEqual(expected)
    })
  }

  it('names the rule that let a call run, and marks an agent file full-auto changes', () => {
    expect(decide('ask', command('ask', [['npm', 'test']]), grants({ rules: [npmTest] }))).toEqual({
      action: 'run',
      rule: npmTest,
    })
    expect(decide('full-auto', file('.github/workflows/ci.yml', true), NO_GRANTS)).toEqual({
      action: 'run',
      agentFile: true,
    })
  })

  it('says why it asks or refuses', () => {
    expect(decide('auto-edit', file('AGENTS.md', true), NO_GRANTS)).toMatchObject({
      action: 'ask',
      why: 'the file instructs agents or other tools',
    })
    expect(decide('full-auto', command('deny', [['rm', '-rf', 'x']]), NO_GRANTS)).toMatchObject({
      action: 'refuse',
      why: 'on the deny list',
    })
  })
})
