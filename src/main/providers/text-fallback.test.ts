import { describe, expect, it } from 'vitest'
import { applyTextFallback, parseTextToolCalls, renderTextToolCalls, textToolPrompt } from './text-fallback'

const KNOWN = ['read_file', 'list_dir', 'get_current_temperature', 'write_file']
const ID = expect.stringMatching(/^call_[a-z0-9]{24}$/)
const call = (name: string, args: string) => ({ id: ID, name, arguments: args })

describe('parseTextToolCalls', () => {
  it('Hermes <tool_call> blocks, several, the last unterminated (as vLLM accepts)', () => {
    const text =
      'Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>\n<tool_call>\n{"name": "list_dir", "arguments": {"path": "src"}}'
    expect(parseTextToolCalls(text, KNOWN)).toEqual({
      calls: [call('read_file', '{"path":"a.ts"}'), call('list_dir', '{"path":"src"}')],
      text: 'Let me look.',
    })
  })

  it('Qwen3-Coder <function=…><parameter=…> inside <tool_call>, and bare', () => {
    const wrapped =
      '<tool_call>\n<function=get_current_temperature>\n<parameter=location>\nSan Francisco\n</parameter>\n<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>'
    expect(parseTextToolCalls(wrapped, KNOWN)).toEqual({
      calls: [call('get_current_temperature', '{"location":"San Francisco","unit":"celsius"}')],
      text: '',
    })
    const bare =
      'Writing.\n<function=write_file>\n<parameter=path>\nx.txt\n</parameter>\n<parameter=content>\nline 1\n  </b>\n</parameter>\n</function>'
    expect(parseTextToolCalls(bare, KNOWN)).toEqual({
      calls: [call('write_file', '{"path":"x.txt","content":"line 1\\n  </b>"}')],
      text: 'Writing.',
    })
  })

  it('bare JSON from qwen2.5-coder, with "arguments" or Llama\'s "parameters", several back to back', () => {
    expect(parseTextToolCalls('{"name": "read_file", "arguments": {"path": "README.md"}}', KNOWN)).toEqual({
      calls: [call('read_file', '{"path":"README.md"}')],
      text: '',
    })
    expect(
      parseTextToolCalls(
        '{"name": "list_dir", "parameters": {}}\n{"name": "read_file", "parameters": {"path": "b"}}',
        KNOWN,
      ),
    ).toEqual({ calls: [call('list_dir', '{}'), call('read_file', '{"path":"b"}')], text: '' })
  })

  it('JSON in a ```json fence, with prose around it', () => {
    const text =
      'I will read it:\n```json\n{"name": "read_file", "arguments": {"path": "src/{x}.ts"}}\n```\nThen decide.'
    expect(parseTextToolCalls(text, KNOWN)).toEqual({
      calls: [call('read_file', '{"path":"src/{x}.ts"}')],
      text: 'I will read it:\n\nThen decide.',
    })
  })

  it('Mistral [TOOL_CALLS] arrays and the [ARGS] form', () => {
    expect(
      parseTextToolCalls(
        '[TOOL_CALLS][{"name":"read_file","arguments":{"path":"a"}},{"name":"list_dir","arguments":{"path":"."}}]',
        KNOWN,
      ),
    ).toEqual({ calls: [call('read_file', '{"path":"a"}'), call('list_dir', '{"path":"."}')], text: '' })
    expect(parseTextToolCalls('[TOOL_CALLS]read_file[ARGS]{"path":"a"}', KNOWN)).toEqual({
      calls: [call('read_file', '{"path":"a"}')],
      text: '',
    })
  })

  it('only known tool names count: prose with JSON stays prose', () => {
    const prose =
      'The config looks like {"name": "my-app", "arguments": {"port": 3000}} and <tool_call>{"name":"rm_rf","arguments":{}}</tool_call>.'
    expect(parseTextToolCalls(prose, KNOWN)).toEqual({ calls: [], text: prose })
    expect(parseTextToolCalls('function f() { return {a: 1} }', KNOWN)).toEqual({
      calls: [],
      text: 'function f() { return {a: 1} }',
    })
  })

  it('arguments given as a JSON string are kept as text', () => {
    expect(
      parseTextToolCalls(
        '<tool_call>{"name":"read_file","arguments":"{\\"path\\":\\"a\\"}"}</tool_call>',
        KNOWN,
      ),
    ).toEqual({
      calls: [call('read_file', '{"path":"a"}')],
      text: '',
    })
  })
})

describe('applyTextFallback, textToolPrompt, renderTextToolCalls', () => {
  const tools = [
    {
      name: 'read_file',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    },
  ]
  const usage = { inputTokens: 1, outputTokens: 2 }

  it('turns parsed calls into the turn, only when there are no native calls', () => {
    const turn = {
      text: 'Sure.\n<tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>',
      toolCalls: [],
      usage,
    }
    expect(applyTextFallback(turn, tools)).toEqual({
      text: 'Sure.',
      toolCalls: [call('read_file', '{"path":"a"}')],
      usage,
      textToolCalls: true,
    })
    const native = { ...turn, toolCalls: [{ id: 'c', name: 'read_file', arguments: '{}' }] }
    expect(applyTextFallback(native, tools)).toBe(native)
    expect(applyTextFallback({ text: 'Just prose.', toolCalls: [], usage }, tools)).toEqual({
      text: 'Just prose.',
      toolCalls: [],
      usage,
    })
  })

  it('the Hermes system block lists every tool, and rendered calls parse back', () => {
    expect(textToolPrompt(tools)).toBe(
      [
        '# Tools',
        '',
        'You may call one or more functions to assist with the user query.',
        '',
        'You are provided with function signatures within <tools></tools> XML tags:',
        '<tools>',
        '{"type":"function","function":{"name":"read_file","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}',
        '</tools>',
        '',
        'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:',
        '<tool_call>',
        '{"name": <function-name>, "arguments": <args-json-object>}',
        '</tool_call>',
      ].join('\n'),
    )
    const rendered = renderTextToolCalls([{ id: 'x', name: 'read_file', arguments: '{"path":"a"}' }])
    expect(rendered).toBe('<tool_call>\n{"name": "read_file", "arguments": {"path":"a"}}\n</tool_call>')
    expect(parseTextToolCalls(rendered, ['read_file']).calls).toEqual([call('read_file', '{"path":"a"}')])
  })
})
