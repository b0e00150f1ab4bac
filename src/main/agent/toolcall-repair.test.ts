import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { StepwiseEvent } from '../../shared/protocol'
import { reduceEvents } from '../../shared/reducer'
import { applyTextToolCalls } from '../providers/toolcalls'
import type { ModelProvider, ModelRequest } from '../providers/types'
import { startSession } from '../session/start'
import { openStore } from '../store/store'
import type { Store } from '../store/types'
import { transcriptFromEvents } from '../providers/transcript'

/*
 * Unreadable tool-call markup must not end a turn as "done": the loop asks the model
 * once to write the call again, and a second failure in a row ends the turn with the
 * text as written. The model's answers go through the real text pipeline.
 */

/** A model that answers with these texts, read by the real pipeline as a provider would. */
function textModel(answers: string[]): ModelProvider & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = []
  return {
    id: 'ollama',
    model: 'scripted',
    baseUrl: 'http://127.0.0.1:1',
    requests,
    async streamTurn(request, handlers) {
      requests.push(structuredClone(request))
      const text = answers[requests.length - 1]
      if (text === undefined) throw new Error('script exhausted')
      handlers.onText(text)
      return applyTextToolCalls(
        { text, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 } },
        request.tools,
      )
    },
  }
}

let repo: string
let dataDir: string
let store: Store

beforeEach(() => {
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-repair-repo-')))
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-repair-data-'))
  fs.writeFileSync(path.join(repo, 'a.txt'), 'one\n')
  store = openStore(dataDir)
})

afterEach(() => {
  store.close()
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

async function run(answers: string[]) {
  const provider = textModel(answers)
  const session = await startSession(store, {
    task: 'read a.txt',
    repo,
    provider: { provider: 'ollama', model: 'scripted' },
    providerOverride: provider,
    policy: 'auto-edit',
    approver: {
      requestApproval: () => Promise.reject(new Error('no approval expected')),
    },
    retry: { sleep: async () => {} },
  })
  const outcome = await session.run(new AbortController().signal)
  return { outcome, provider, events: store.listEvents(session.sessionId) }
}

const BROKEN = 'Reading it.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}\n</tool_call>'
const FIXED = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n</tool_call>'
const kinds = (events: StepwiseEvent[]) =>
  events
    .filter((e) => !['assistant.delta', 'session.started', 'turn.started', 'turn.finished'].includes(e.type))
    .map((e) => e.type)

describe('unreadable tool calls', () => {
  it('asks the model once to rewrite the call, in its format, and goes on when it does', async () => {
    const { outcome, provider, events } = await run([BROKEN, FIXED, 'It says one.'])
    expect(outcome.reason).toBe('done')
    expect(outcome.finalText).toBe('It says one.')
    expect(kinds(events)).toEqual([
      'user.message',
      'assistant.message',
      'toolcall.unparsed',
      'assistant.message',
      'tool.started',
      'tool.finished',
      'assistant.message',
      'session.finished',
    ])
    const warning = events.find((e) => e.type === 'toolcall.unparsed')!
    expect(warning).toMatchObject({
      step: 1,
      family: 'hermes',
      problem: expect.stringContaining('the JSON inside <tool_call> does not parse'),
      format: '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/index.ts"}}\n</tool_call>',
    })
    // The model saw its own text unchanged, then the repair message as a user turn.
    const second = provider.requests[1].transcript
    expect(second.slice(-2)).toEqual([
      { role: 'assistant', text: BROKEN, toolCalls: [], responseId: undefined },
      { role: 'user', text: warning.type === 'toolcall.unparsed' ? warning.repair : '' },
    ])
    expect(second.at(-1)).toMatchObject({ text: expect.stringContaining('Nothing was run.') })
    expect(second.at(-1)).toMatchObject({
      text: expect.stringContaining('<tool_call>\n{"name": "read_file"'),
    })
    // A fork rebuilds the same transcript from the stored events.
    const atRepair = events.find((e) => e.type === 'toolcall.unparsed')!.seq
    expect(transcriptFromEvents(events, atRepair).at(-1)).toEqual(second.at(-1))
    // The timeline shows a warning step.
    const view = reduceEvents(events)
    expect(view.steps.filter((s) => s.kind === 'unparsed-call')).toHaveLength(1)
  })

  it('a second unreadable call in a row ends the turn with the text as written', async () => {
    const { outcome, provider, events } = await run([BROKEN, BROKEN])
    expect(outcome.reason).toBe('done')
    expect(outcome.finalText).toBe(BROKEN)
    expect(provider.requests).toHaveLength(2)
    const warnings = events.filter((e) => e.type === 'toolcall.unparsed')
    expect(warnings.map((w) => w.type === 'toolcall.unparsed' && w.repair !== undefined)).toEqual([
      true,
      false,
    ])
    expect(kinds(events)).toEqual([
      'user.message',
      'assistant.message',
      'toolcall.unparsed',
      'assistant.message',
      'toolcall.unparsed',
      'session.finished',
    ])
  })

  it('an example in prose ends the turn normally: no warning, no repair', async () => {
    const prose =
      'You can call tools like this:\n\n```\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"\n</tool_call>\n```\n\nThat is all.'
    const { outcome, events } = await run([prose])
    expect(outcome).toMatchObject({ reason: 'done', finalText: prose })
    expect(kinds(events)).toEqual(['user.message', 'assistant.message', 'session.finished'])
  })
})

describe('a well-formed call inside prose', () => {
  // vLLM tests/tool_parsers/test_llama3_json_tool_parser.py::test_extract_tool_calls_simple: Llama 3
  // JSON with prose before and after it is kept as text; the turn must not end on it unasked.
  const PROSE = 'Let me look: {"name": "read_file", "parameters": {"path": "a.txt"}} and then I will answer.'
  const ONLY = '{"name": "read_file", "parameters": {"path": "a.txt"}}'

  it('is neither run nor dropped: the model is asked once, and the call runs when it replies with only the call', async () => {
    const { outcome, provider, events } = await run([PROSE, ONLY, 'It says one.'])
    expect(outcome).toMatchObject({ reason: 'done', finalText: 'It says one.' })
    expect(kinds(events)).toEqual([
      'user.message',
      'assistant.message',
      'toolcall.unparsed',
      'assistant.message',
      'tool.started',
      'tool.finished',
      'assistant.message',
      'session.finished',
    ])
    expect(events.find((e) => e.type === 'toolcall.unparsed')).toMatchObject({
      family: 'in-prose',
      problem: 'a call to read_file inside other text was not run',
      format: ONLY,
    })
    expect(provider.requests[1].transcript.at(-1)).toMatchObject({
      role: 'user',
      text: expect.stringContaining('To run read_file, reply with only the call'),
    })
    expect(reduceEvents(events).steps.filter((s) => s.kind === 'unparsed-call')).toHaveLength(1)
  })

  it('asked once only: the same prose again ends the turn with it, nothing run', async () => {
    const { outcome, provider, events } = await run([PROSE, PROSE])
    expect(outcome).toMatchObject({ reason: 'done', finalText: PROSE })
    expect(provider.requests).toHaveLength(2)
    expect(events.filter((e) => e.type === 'tool.started')).toEqual([])
  })
})
