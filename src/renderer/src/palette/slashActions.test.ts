import { describe, expect, it } from 'vitest'
import type { TimelineStep } from '../../../shared/reducer'
import { sessionMarkdown } from './slashActions'

describe('sessionMarkdown (/export)', () => {
  it('writes what was asked, answered and done, in order', () => {
    const steps = [
      { kind: 'user', seq: 1, ts: 0, text: 'Fix **it**' },
      { kind: 'model', seq: 2, ts: 0, step: 1, text: '', toolCalls: [], status: 'ok', retries: 0 },
      {
        kind: 'tool',
        seq: 3,
        ts: 0,
        callId: 'c',
        name: 'write_file',
        args: { path: 'a.ts', content: 'x'.repeat(500) },
        mutating: true,
        status: 'ok',
        output: '',
      },
      { kind: 'model', seq: 4, ts: 0, step: 2, text: 'Done.', toolCalls: [], status: 'ok', retries: 0 },
      { kind: 'error', seq: 5, ts: 0, message: 'Server went away', code: 'network' },
    ] as TimelineStep[]
    const md = sessionMarkdown('My chat', steps)
    expect(md.startsWith('# My chat\n')).toBe(true)
    expect(md).toContain('## You\n\nFix **it**')
    expect(md).toContain('## Model\n\nDone.')
    expect(md).toContain('- `write_file` {"path":"a.ts"')
    expect(md).toContain('> Error: Server went away')
    // An empty model step (tool calls only) adds no heading; long arguments are cut.
    expect(md.match(/## Model/g)).toHaveLength(1)
    expect(md.length).toBeLessThan(500)
  })
})
