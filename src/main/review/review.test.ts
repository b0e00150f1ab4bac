import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it, onTestFinished } from 'vitest'
import { startFakeModelServer, type FakeModelServer } from '../../../test/fake-model-server'
import type { StepwiseEvent } from '../../shared/protocol'
import { openStore } from '../store/store'
import type { Store } from '../store/types'
import { makeProject, writeFiles } from '../tools/test-support'
import { runReview } from './review'

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

let server: FakeModelServer | undefined
let store: Store | undefined

afterEach(async () => {
  await server?.close()
  server = undefined
  store?.close()
  store = undefined
})

function repoWith(files: Record<string, string>): string {
  const root = makeProject(files)
  git(root, 'init', '-q', '-b', 'main')
  git(root, 'config', 'user.email', 'dev@example.com')
  git(root, 'config', 'user.name', 'Dev')
  git(root, 'add', '-A')
  git(root, 'commit', '-qm', 'initial')
  return root
}

function openTempStore(): Store {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-review-data-'))
  store = openStore(dir)
  const opened = store
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }))
  return opened
}

describe('runReview', () => {
  it('runs a read-only session, records findings as events and returns them sorted', async () => {
    const root = repoWith({ 'calc.ts': 'export const avg = (xs: number[]) => sum(xs) / xs.length\n' })
    writeFiles(root, {
      'calc.ts': 'export const avg = (xs: number[]) => sum(xs) / xs.length\nexport const x = eval("1")\n',
    })
    server = await startFakeModelServer({
      turns: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'calc.ts' } }] },
        {
          toolCalls: [
            {
              name: 'report_finding',
              arguments: {
                file: 'calc.ts',
                line: 2,
                severity: 'high',
                category: 'security',
                message: 'eval runs arbitrary code.',
              },
            },
            {
              name: 'report_finding',
              arguments: {
                file: 'calc.ts',
                line: 1,
                severity: 'medium',
                category: 'bug',
                message: 'Empty input divides by zero.',
                suggestion: 'Return 0 for [].',
              },
            },
          ],
        },
        { text: 'Two problems: eval, and an empty-array division.' },
      ],
    })
    const s = openTempStore()
    const emitted: StepwiseEvent[] = []
    const result = await runReview(s, {
      repo: root,
      focus: 'safety',
      provider: { provider: 'openai-chat', model: 'm1', baseUrl: server.v1Url },
      emit: (e) => emitted.push(e),
      retry: { maxAttempts: 1 },
    })
    if (!result.ok) throw new Error(result.error)
    expect(result).toMatchObject({
      target: 'the uncommitted changes (working tree against HEAD, plus untracked files)',
      summary: 'Two problems: eval, and an empty-array division.',
      findings: [
        {
          file: 'calc.ts',
          line: 1,
          severity: 'medium',
          category: 'bug',
          message: 'Empty input divides by zero.',
          suggestion: 'Return 0 for [].',
        },
        {
          file: 'calc.ts',
          line: 2,
          severity: 'high',
          category: 'security',
          message: 'eval runs arbitrary code.',
        },
      ],
      outcome: { reason: 'done', steps: 3 },
    })
    // Stored before emitted, in order; each finding sits inside its own tool call.
    const stored = s.listEvents(result.sessionId!)
    expect(stored).toEqual(emitted)
    const types = stored.map((e) => e.type).filter((t) => t !== 'assistant.delta')
    expect(types).toEqual([
      'session.started',
      'turn.started',
      'user.message',
      'assistant.message',
      'tool.started',
      'tool.finished',
      'assistant.message',
      'tool.started',
      'review.finding',
      'tool.finished',
      'tool.started',
      'review.finding',
      'tool.finished',
      'assistant.message',
      'session.finished',
      'turn.finished',
    ])
    const started = stored.filter((e) => e.type === 'tool.started').map((e) => e.callId)
    const findingCalls = stored.flatMap((e) => (e.type === 'review.finding' ? [e.callId] : []))
    expect(findingCalls).toEqual(started.slice(1))
    expect(stored[0]).toMatchObject({ type: 'session.started', approvalPolicy: 'read-only' })
    expect(stored[2]).toMatchObject({ type: 'user.message' })
    const task = (stored[2] as { text: string }).text
    expect(task.split('\n')[0]).toBe(
      'Review the uncommitted changes (working tree against HEAD, plus untracked files).',
    )
    expect(task).toContain('Focus: safety')
    expect(task).toContain('+export const x = eval("1")')
    expect(s.findSession(result.sessionId!)).toMatchObject({ status: 'done' })

    // Only tools that change nothing were offered, and the review instructions were sent.
    const body = server.requests[0].body
    const offered = (body.tools as { function: { name: string } }[]).map((t) => t.function.name)
    expect(offered).toEqual([
      'list_files',
      'read_file',
      'file_info',
      'search_in_files',
      'get_baseline_info',
      'list_changed_files',
      'read_file_original',
      'diff_file_against_original',
      'get_structure',
      'get_function',
      'get_class',
      'find_definition',
      'find_references',
      'get_dependencies',
      'get_dependents',
      'get_complexity',
      'get_todos',
      'git_status',
      'git_diff',
      'git_log',
      'git_show',
      'report_finding',
    ])
    expect(JSON.stringify(body.messages[0])).toContain('This session is a code review')
  })

  it('opens no session when there is nothing to review', async () => {
    const root = repoWith({ 'a.ts': 'a\n' })
    const s = openTempStore()
    const result = await runReview(s, {
      repo: root,
      provider: { provider: 'openai-chat', model: 'm1', baseUrl: 'http://127.0.0.1:9' },
    })
    expect(result).toEqual({
      ok: true,
      sessionId: null,
      target: 'the uncommitted changes (working tree against HEAD, plus untracked files)',
      findings: [],
      summary:
        'Nothing to review: no files in the uncommitted changes (working tree against HEAD, plus untracked files).',
    })
    expect(s.listSessions({})).toEqual([])
  })

  it('returns a bad target as an error value', async () => {
    const root = repoWith({ 'a.ts': 'a\n' })
    const result = await runReview(openTempStore(), {
      repo: root,
      target: 'git:nope',
      provider: { provider: 'openai-chat', model: 'm1', baseUrl: 'http://127.0.0.1:9' },
    })
    expect(result).toEqual({
      ok: false,
      error: 'unknown revision in "git:nope": it is not a commit in this repository (see git log).',
    })
  })
})
