import { describe, expect, it } from 'vitest'
import { refusalAdvice, refusingApprover } from './approvals'

describe('a refusal without a terminal names what would help under the policy in force', () => {
  it('ask: a file change → auto-edit; a command → full-auto or the allow list', () => {
    expect(refusalAdvice('ask', { kind: 'file' })).toMatch(/"ask".*--approve auto-edit/)
    expect(refusalAdvice('ask', { kind: 'action' })).toMatch(/--approve full-auto.*"allow" list/)
  })

  it('auto-edit: a command never advises auto-edit, the policy already in force', async () => {
    const answer = await refusingApprover('auto-edit').requestApproval(
      { kind: 'action', sessionId: 's', callId: 'c', tool: 'run_command', plan: {} as never },
      new AbortController().signal,
    )
    expect(answer.decision).toBe('reject')
    const reason = (answer as { reason: string }).reason
    expect(reason).toMatch(/Approval policy is "auto-edit"/)
    expect(reason).toMatch(/--approve full-auto/)
    expect(reason).not.toMatch(/--approve auto-edit/)
    expect(refusalAdvice('auto-edit', { kind: 'file' })).not.toMatch(/--approve auto-edit/)
  })

  it('full-auto and conflicts: answer in a terminal', () => {
    expect(refusalAdvice('full-auto', { kind: 'action' })).toMatch(/Run in a terminal/)
    expect(refusalAdvice('auto-edit', { kind: 'conflict' })).toMatch(/changed on disk/)
  })
})
