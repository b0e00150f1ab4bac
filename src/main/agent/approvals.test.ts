import { describe, expect, it } from 'vitest'
import type { ApprovalPolicy, ApprovalSubject } from '../../shared/protocol'
import { refusingApprover } from './approvals'

const command: ApprovalSubject = {
  kind: 'command',
  command: 'npm publish --dry-run',
  cwd: '/p',
  verdict: 'ask',
  parts: [{ words: ['npm', 'publish', '--dry-run'], allowed: false }],
}

async function refusal(policy: ApprovalPolicy, subject: ApprovalSubject, withRule = true): Promise<string> {
  const answer = await refusingApprover.requestApproval(
    {
      sessionId: 's',
      callId: 'c',
      tool: 'run_command',
      subject,
      policy,
      why: 'not on the allowlist',
      ...(withRule ? { rule: { kind: 'command', words: ['npm', 'publish'], exact: false } } : {}),
    },
    new AbortController().signal,
  )
  if (answer.decision !== 'reject') throw new Error('the refusing approver accepted')
  return answer.reason ?? ''
}

describe('a refusal where no one can be asked', () => {
  it('under auto-edit names what helps there, not --approve auto-edit', async () => {
    const reason = await refusal('auto-edit', command)
    expect(reason).toMatch(/^Approval policy is "auto-edit"/)
    expect(reason).not.toContain('--approve auto-edit')
    expect(reason).toContain('stepwise rules add npm publish')
    expect(reason).toContain('--approve full-auto')
  })

  it('under ask offers auto-edit only for file changes', async () => {
    const file: ApprovalSubject = {
      kind: 'file',
      path: 'a.ts',
      change: 'modify',
      diff: '',
      before: '',
      after: '',
    }
    expect(await refusal('ask', file, false)).toContain('--approve auto-edit')
    expect(await refusal('ask', command)).not.toContain('--approve auto-edit')
  })

  it('for an agent file says it asks under every policy but full-auto', async () => {
    const agents: ApprovalSubject = {
      kind: 'file',
      path: 'AGENTS.md',
      change: 'create',
      diff: '',
      before: null,
      after: 'x',
      agentFile: true,
    }
    const reason = await refusal('auto-edit', agents, false)
    expect(reason).toContain('AGENTS.md instructs agents')
    expect(reason).not.toContain('--approve auto-edit')
  })
})
