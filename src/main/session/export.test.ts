import { describe, expect, it } from 'vitest'
import type { StepwiseEvent } from '../../shared/protocol'
import type { SessionRow } from '../store/types'
import { exportMarkdown } from './export'

describe('exportMarkdown', () => {
  it('says where the model was switched, and not for a policy switch', () => {
    const session: SessionRow = {
      id: 's1',
      repo: '/p',
      title: 'Chat',
      provider: 'ollama',
      model: 'coder:1b',
      status: 'idle',
      createdAt: 0,
      updatedAt: 0,
      parentId: null,
      forkSeq: null,
      deletedAt: null,
    }
    const base = { sessionId: 's1', ts: 0 }
    const events = [
      {
        ...base,
        seq: 1,
        type: 'session.started',
        protocolVersion: 1,
        repo: '/p',
        provider: 'ollama',
        model: 'coder:1b',
        approvalPolicy: 'ask',
        maxSteps: 50,
      },
      { ...base, seq: 2, type: 'session.configured', approvalPolicy: 'auto-edit' },
      { ...base, seq: 3, type: 'session.configured', provider: 'openai-chat', model: 'gpt-local' },
    ] as StepwiseEvent[]
    const lines = exportMarkdown(session, events).split('\n')
    expect(lines.filter((l) => l.includes('switched'))).toEqual([
      '*Model switched to gpt-local (openai-chat) from coder:1b (ollama) [3]*',
    ])
  })
})
