import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { StepwiseEvent, ToolCall } from '../../shared/protocol'
import type { Approver } from '../agent/approvals'
import type { ModelProvider, ModelRequest, ModelTurn } from '../providers/types'
import { startSession } from '../session/start'
import { openStore } from '../store/store'
import type { Store } from '../store/types'

/** Test support for forks: a real git repository, a real SQLite file, a scripted model. */

/** A model that plays a script and keeps every request it was sent. */
export function scripted(
  steps: Partial<ModelTurn>[],
  model = 'scripted',
): ModelProvider & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = []
  let i = 0
  return {
    id: 'openai-chat',
    model,
    baseUrl: 'http://127.0.0.1:1/v1',
    requests,
    async streamTurn(request) {
      requests.push(structuredClone(request))
      const step = steps[i++]
      if (!step) throw new Error('script exhausted')
      return { text: '', toolCalls: [], usage: { inputTokens: 10, outputTokens: 5 }, ...step }
    },
  }
}

export const call = (id: string, name: string, args: unknown): ToolCall => ({
  id,
  name,
  arguments: JSON.stringify(args),
})

export const noApprover: Approver = {
  requestApproval: async () => {
    throw new Error('not asked in these tests')
  },
}

export const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8' })

export interface ForkFixture {
  repo: string
  dataDir: string
  store: Store
  /** Two edits (one → two → three) and a final answer, run on a scripted model. */
  parentSession(): Promise<{
    sessionId: string
    events: StepwiseEvent[]
    provider: ReturnType<typeof scripted>
    /** The result of the first edit: the model has seen one → two. */
    afterFirst: number
    secondCall: number
  }>
  close(): void
}

/** A committed repository holding `a.txt` ("one") and a store beside it. */
export function forkFixture(): ForkFixture {
  const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-fork-repo-')))
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-fork-data-'))
  fs.writeFileSync(path.join(repo, 'a.txt'), 'one\n')
  git(repo, 'init', '-q')
  git(repo, '-c', 'user.email=t@t', '-c', 'user.name=t', 'add', '.')
  git(repo, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'init')
  const store = openStore(dataDir)
  return {
    repo,
    dataDir,
    store,
    async parentSession() {
      const provider = scripted([
        {
          text: 'first',
          toolCalls: [call('c1', 'edit_file', { path: 'a.txt', old_string: 'one', new_string: 'two' })],
        },
        {
          text: 'second',
          toolCalls: [call('c2', 'edit_file', { path: 'a.txt', old_string: 'two', new_string: 'three' })],
        },
        { text: 'Done.' },
      ])
      const session = await startSession(store, {
        task: 'count up',
        repo,
        provider: { provider: 'openai-chat', model: 'scripted' },
        providerOverride: provider,
        policy: 'auto-edit',
        approver: noApprover,
      })
      await session.run(new AbortController().signal)
      const events = store.listEvents(session.sessionId)
      const seqOf = (pred: (e: StepwiseEvent) => boolean) => events.find(pred)!.seq
      return {
        sessionId: session.sessionId,
        events,
        provider,
        afterFirst: seqOf((e) => e.type === 'tool.finished' && e.callId === 'c1'),
        secondCall: seqOf((e) => e.type === 'assistant.message' && e.step === 2),
      }
    },
    close() {
      store.close()
      for (const dir of [repo, dataDir]) fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}
