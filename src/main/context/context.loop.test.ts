import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Approver } from '../agent/approvals'
import type { ModelProvider, ModelRequest, ModelTurn } from '../providers/types'
import { ProviderError } from '../providers/types'
import { startSession } from '../session/start'
import { openStore } from '../store/store'
import type { Store } from '../store/types'
import { DROPPED_RESULT } from './compaction'

let repo: string
let dataDir: string
let store: Store

beforeEach(() => {
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-ctx-repo-')))
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-ctx-data-'))
  // About 700 tokens per read.
  fs.writeFileSync(
    path.join(repo, 'big.txt'),
    Array.from({ length: 120 }, (_, i) => `line ${i} of a long file`).join('\n'),
  )
  store = openStore(dataDir)
})

afterEach(() => {
  store.close()
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

const noApprover: Approver = {
  requestApproval: () => Promise.reject(new Error('no approval expected')),
}

/** A model with a small window: reads big.txt `reads` times, then answers. Summary requests (no tools) get a summary. */
function smallWindowModel(window: number, plan: Array<'read' | 'overflow' | 'done'>, thinking = '') {
  const requests: ModelRequest[] = []
  let step = 0
  const provider: ModelProvider & { requests: ModelRequest[] } = {
    id: 'ollama',
    model: 'tiny',
    baseUrl: 'http://127.0.0.1:1',
    requests,
    contextWindow: async () => window,
    async streamTurn(request): Promise<ModelTurn> {
      requests.push(structuredClone(request))
      const usage = { inputTokens: 0, outputTokens: 5 }
      if (request.tools.length === 0)
        return { text: 'SUMMARY: read big.txt several times.', toolCalls: [], usage }
      const next = plan[step++]
      if (next === 'overflow')
        throw new ProviderError('context-overflow', 'exceeds the available context size')
      if (next === 'read')
        return {
          text: thinking,
          toolCalls: [{ id: `c${step}`, name: 'read_file', arguments: '{"path":"big.txt"}' }],
          usage,
        }
      return { text: 'done', toolCalls: [], usage }
    },
  }
  return provider
}

async function run(provider: ModelProvider) {
  const session = await startSession(store, {
    task: 'read it a lot',
    repo,
    provider: { provider: 'ollama', model: 'tiny' },
    providerOverride: provider,
    policy: 'auto-edit',
    approver: noApprover,
    retry: { sleep: async () => {} },
  })
  const outcome = await session.run(new AbortController().signal)
  return { outcome, events: store.listEvents(session.sessionId) }
}

describe('context management in the loop', () => {
  it('compacts before a request passes 80% of the window: old tool results first, then a summary', async () => {
    const provider = smallWindowModel(14000, [
      'read',
      'read',
      'read',
      'read',
      'read',
      'read',
      'read',
      'read',
      'done',
    ])
    const { outcome, events } = await run(provider)
    expect(outcome.reason).toBe('done')
    const compactions = events.filter((e) => e.type === 'context.compacted')
    expect(compactions.length).toBeGreaterThan(0)
    for (const c of compactions) expect(c.afterTokens).toBeLessThan(c.beforeTokens)
    // The cheapest stage came first: dropped tool results, no summary.
    expect(compactions[0].summary).toBeUndefined()
    const toolRequests = provider.requests.filter((r) => r.tools.length > 0)
    expect(
      toolRequests.some((r) => r.transcript.some((t) => t.role === 'tool' && t.output === DROPPED_RESULT)),
    ).toBe(true)
    // The meter is on every model turn.
    const messages = events.filter((e) => e.type === 'assistant.message')
    for (const m of messages) expect(m.context?.windowTokens).toBe(14000)
    for (const m of messages) expect(m.context!.usedTokens).toBeLessThanOrEqual(14000)
  })

  it('summarises older turns when dropping results is not enough', async () => {
    // Long reasoning on every turn: dropping tool results alone cannot keep up.
    const thinking = 'I will look at the file again to be sure of every detail. '.repeat(25)
    const provider = smallWindowModel(8000, Array(12).fill('read').concat('done'), thinking)
    const { events, outcome } = await run(provider)
    expect(outcome.reason).toBe('done')
    const summarised = events.filter((e) => e.type === 'context.compacted' && e.summary)
    expect(summarised.length).toBeGreaterThan(0)
    const after = provider.requests.filter((r) => r.tools.length > 0).at(-1)!
    expect(after.transcript[0]).toEqual({ role: 'user', text: 'read it a lot' })
    expect(after.transcript.some((t) => t.role === 'user' && t.text.includes('SUMMARY: read big.txt'))).toBe(
      true,
    )
  })

  it('a context_length_exceeded answer compacts and retries once, never in a loop', async () => {
    const once = await run(smallWindowModel(100_000, ['read', 'read', 'overflow', 'done']))
    expect(once.outcome.reason).toBe('done')
    expect(once.events.filter((e) => e.type === 'context.compacted')).toHaveLength(1)

    const twice = await run(smallWindowModel(100_000, ['read', 'overflow', 'overflow', 'done']))
    expect(twice.outcome.reason).toBe('error')
    expect(twice.outcome.errorKind).toBe('context-overflow')
  })
})
