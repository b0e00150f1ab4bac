/**
 * For the bundle tests: a real recorded session (startSession with a scripted
 * in-process model making edits), and a way to rewrite a bundle record by record
 * so that crafted bundles carry a valid trailer.
 */
import fs from 'node:fs'
import type { ToolCall } from '../../shared/protocol'
import { isRecord } from '../../shared/records'
import type { ModelProvider, ModelTurn } from '../providers/types'
import { startSession } from '../session/start'
import type { Store } from '../store/types'
import {
  BundleWriter,
  openBundle,
  RECORD,
  type BundleRecord,
  type BundleWriterOptions,
} from './bundle-format'

function scriptedProvider(turns: Array<Partial<ModelTurn>>): ModelProvider {
  let i = 0
  return {
    id: 'openai-chat',
    model: 'scripted',
    baseUrl: 'http://127.0.0.1:1/v1',
    async streamTurn(_request, handlers) {
      const turn = turns[i++]
      if (turn === undefined) throw new Error('script exhausted')
      if (turn.text) handlers.onText(turn.text)
      handlers.onTraffic({
        direction: 'request',
        provider: 'openai-chat',
        url: 'fake',
        body: `{"turn":${i}}`,
      })
      handlers.onTraffic({
        direction: 'response',
        provider: 'openai-chat',
        url: 'fake',
        status: 200,
        body: `{"answer":${i}}`,
      })
      return { text: '', toolCalls: [], usage: { inputTokens: 10, outputTokens: 5 }, ...turn }
    },
  }
}

const call = (id: string, name: string, args: unknown): ToolCall => ({
  id,
  name,
  arguments: JSON.stringify(args),
})

/**
 * Records a session in `repo` (which must hold `a.txt` = "one\ntwo\nthree\n"):
 * it reads a.txt, writes notes/b.md, edits a.txt and finishes; returns its id.
 */
export async function recordEditingSession(store: Store, repo: string): Promise<string> {
  const provider = scriptedProvider([
    { text: 'Looking.', toolCalls: [call('c1', 'read_file', { path: 'a.txt' })] },
    { toolCalls: [call('c2', 'write_file', { path: 'notes/b.md', content: '# Notes\n\nsecond file\n' })] },
    { toolCalls: [call('c3', 'edit_file', { path: 'a.txt', old_string: 'two', new_string: 'TWO' })] },
    { text: 'Done: b.md written, two is TWO.' },
  ])
  const session = await startSession(store, {
    task: 'change a.txt and add notes',
    repo,
    provider: { provider: 'openai-chat', model: 'scripted' },
    providerOverride: provider,
    policy: 'auto-edit',
    approver: {
      requestApproval: async () => {
        throw new Error('auto-edit asks nothing')
      },
    },
    retry: { sleep: async () => {} },
  })
  const outcome = await session.run(new AbortController().signal)
  if (outcome.reason !== 'done') throw new Error(`scripted session ended ${outcome.reason}`)
  return session.sessionId
}

/**
 * Copies bundle `from` to `to` through `transform` (records it returns replace
 * the one given; `[]` drops it), with a fresh trailer, so only what the
 * transform changed is wrong.
 */
export function rewriteBundle(
  from: string,
  to: string,
  transform: (r: BundleRecord) => BundleRecord[],
  opts: BundleWriterOptions = {},
): void {
  const writer = new BundleWriter(to, opts)
  for (const record of openBundle(from).records()) {
    for (const r of transform({ kind: record.kind, payload: Buffer.from(record.payload) }))
      writer.add(r.kind, [r.payload])
  }
  writer.finish()
}

export const jsonRecord = (kind: number, value: unknown): BundleRecord => ({
  kind,
  payload: Buffer.from(JSON.stringify(value)),
})

export function readJsonRecords(file: string, kind: number): Array<Record<string, unknown>> {
  return [...openBundle(file).records()]
    .filter((r) => r.kind === kind)
    .map((r) => {
      const value: unknown = JSON.parse(r.payload.toString('utf8'))
      if (!isRecord(value)) throw new Error(`a record of kind ${kind} is not a JSON object`)
      return value
    })
}

export { RECORD }

export { dumpStore } from '../store/testing/dump'

export const fileSize = (file: string): number => fs.statSync(file).size
