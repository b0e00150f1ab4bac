import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ApprovalPolicy, EventDraft } from '../../shared/protocol'
import type { Approver } from '../agent/approvals'
import { runAction } from '../agent/mutations'
import { testMutationDeps } from '../agent/test-support'
import { runCommandTool } from '../tools/exec'
import { makeContext, makeProject } from '../tools/test-support'

/*
 * Through the real tool and the real approval path: a denied verdict is refused
 * under every approval policy, full-auto included, and nothing runs; an "ask"
 * verdict runs in full-auto (which is why what cannot be known must deny).
 */

async function attempt(policy: ApprovalPolicy, command: string) {
  const root = makeProject({ 'victim/keep.txt': 'still here\n', '.env': 'API_KEY=sk-test-123\n' })
  const asked: string[] = []
  const approver: Approver = {
    async requestApproval(request) {
      asked.push(request.subject.kind)
      return { decision: 'accept' }
    },
  }
  const events: EventDraft[] = []
  const result = await runAction(
    testMutationDeps({
      sessionId: 's1',
      toolContext: await makeContext(root),
      approver,
      record: (e) => events.push(e),
      policy: () => policy,
    }),
    runCommandTool,
    { callId: 'call-1', input: { command }, signal: new AbortController().signal },
  )
  return { root, result: result as { ok: boolean; error?: string; output?: string }, asked }
}

describe('run_command under each approval policy', () => {
  const refused = [
    'rm -rf victim',
    'rm --rec --for victim',
    '$(echo rm) -rf victim',
    "$'\\x72\\x6d' -rf victim",
    'echo "rm -rf victim" | sh',
    'bash <<< "rm -rf victim"',
    'eval "rm -rf victim"',
    'X=rm; $X -rf victim',
    'xargs --max-a 1 rm -rf <<< victim',
    'timeout --sig KILL 5 rm -rf victim',
    'find victim -exec sh -c "$0" {} ;',
    'cat .env',
  ]

  for (const policy of ['full-auto', 'auto-edit', 'ask'] as const) {
    it(`refuses denied commands in ${policy} without asking, and runs nothing`, async () => {
      for (const command of refused) {
        const { root, result, asked } = await attempt(policy, command)
        expect([command, result.ok, asked]).toEqual([command, false, []])
        expect(result.error).toMatch(/^Refused: /)
        expect(fs.existsSync(path.join(root, 'victim/keep.txt'))).toBe(true)
      }
    })
  }

  it('tells the model how to write an unresolvable command instead', async () => {
    const { result } = await attempt('full-auto', '$(echo rm) -rf victim')
    expect(result.error).toMatch(/write the command plainly: the program and its arguments literally/)
  })

  it('runs an asking command in full-auto without asking, and an allowed one in auto-edit', async () => {
    const made = await attempt('full-auto', 'touch made-it')
    expect([made.result.ok, made.asked]).toEqual([true, []])
    expect(fs.existsSync(path.join(made.root, 'made-it'))).toBe(true)
    const listed = await attempt('auto-edit', 'ls victim | sort')
    expect([listed.result.ok, listed.asked, listed.result.output?.trim()]).toEqual([true, [], 'keep.txt'])
    const asked = await attempt('auto-edit', 'touch made-it')
    expect(asked.asked).toEqual(['command'])
  })
})
