import { describe, expect, it } from 'vitest'
import { CORPUS_TOOLS } from '../../../test/toolcall-corpus'
import { applyTextFallback, parseTextToolCalls, renderTextToolCalls, textToolPrompt } from './text-fallback'

const ID = expect.stringMatching(/^call_[a-z0-9]{24}$/)
const call = (name: string, args: string) => ({ id: ID, name, arguments: args })
const parse = (text: string) => parseTextToolCalls(text, CORPUS_TOOLS)

describe('parseTextToolCalls', () => {
  it('Hermes <tool_call> blocks, several, the last unterminated (as vLLM accepts)', () => {
    const text =
      'Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>\n<tool_call>\n{"name": "list_files", "arguments": {"prefix": "src"}}'
    expect(parse(text)).toEqual({
      calls: [call('read_file', '{"path":"a.ts"}'), call('list_files', '{"prefix":"src"}')],
      text: 'Let me look.',
      broken: [],
    })
  })

  it('Qwen3-Coder <function=…><parameter=…> inside <tool_call>, and bare', () => {
    const wrapped =
      '<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/a.ts\n</parameter>\n<parameter=start_line>\n10\n</parameter>\n</function>\n</tool_call>'
    expect(parse(wrapped)).toEqual({
      calls: [call('read_file', '{"path":"src/a.ts","start_line":10}')],
      text: '',
      broken: [],
    })
    const bare =
      'Writing.\n<function=write_file>\n<parameter=path>\nx.txt\n</parameter>\n<parameter=content>\nline 1\n  </b>\n</parameter>\n</function>'
    expect(parse(bare)).toEqual({
      calls: [call('write_file', '{"path":"x.txt","content":"line 1\\n  </b>"}')],
      text: 'Writing.',
      broken: [],
    })
  })

  it('bare JSON from qwen2.5-coder, with "arguments" or Llama\'s "parameters", several back to back', () => {
    expect(parse('{"name": "read_file", "arguments": {"path": "README.md"}}')).toEqual({
      calls: [call('read_file', '{"path":"README.md"}')],
      text: '',
      broken: [],
    })
    expect(
      parse('{"name": "git_status", "parameters": {}}\n{"name": "read_file", "parameters": {"path": "b"}}'),
    ).toEqual({
      calls: [call('git_status', '{}'), call('read_file', '{"path":"b"}')],
      text: '',
      broken: [],
    })
  })

  it('JSON in a ```json fence after a short lead-in is a call; with prose after it, an example', () => {
    const text = 'I will read it:\n```json\n{"name": "read_file", "arguments": {"path": "src/{x}.ts"}}\n```\n'
    expect(parse(text)).toEqual({
      calls: [call('read_file', '{"path":"src/{x}.ts"}')],
      text: 'I will read it:',
      broken: [],
    })
    const explained = `${text}That is how a call looks; the path is relative to the root.`
    expect(parse(explained)).toEqual({ calls: [], text: explained, broken: [] })
  })

  it('Mistral [TOOL_CALLS] arrays and the [ARGS] form', () => {
    expect(
      parse(
        '[TOOL_CALLS][{"name":"read_file","arguments":{"path":"a"}},{"name":"list_files","arguments":{"prefix":"."}}]',
      ),
    ).toEqual({
      calls: [call('read_file', '{"path":"a"}'), call('list_files', '{"prefix":"."}')],
      text: '',
      broken: [],
    })
    expect(parse('[TOOL_CALLS]read_file[ARGS]{"path":"a"}')).toEqual({
      calls: [call('read_file', '{"path":"a"}')],
      text: '',
      broken: [],
    })
  })

  it('only offered tools count: prose with JSON stays prose; an unknown tool in real markup asks for a repair', () => {
    const prose = 'The config looks like {"name": "my-app", "arguments": {"port": 3000}} in package.json.'
    expect(parse(prose)).toEqual({ calls: [], text: prose, broken: [] })
    expect(parse('function f() { return {a: 1} }')).toEqual({
      calls: [],
      text: 'function f() { return {a: 1} }',
      broken: [],
    })
    const unknown = 'Cleaning up. <tool_call>{"name":"rm_rf","arguments":{}}</tool_call>'
    const result = parse(unknown)
    expect(result.calls).toEqual([])
    expect(result.text).toBe(unknown)
    expect(result.broken).toEqual([
      expect.objectContaining({
        family: 'hermes',
        problem: expect.stringContaining('"rm_rf" is not one of the tools'),
      }),
    ])
  })

  it('arguments given as a JSON string are decoded', () => {
    expect(parse('<tool_call>{"name":"read_file","arguments":"{\\"path\\":\\"a\\"}"}</tool_call>')).toEqual({
      calls: [call('read_file', '{"path":"a"}')],
      text: '',
      broken: [],
    })
  })
})

describe('applyTextFallback, textToolPrompt, renderTextToolCalls', () => {
  const tools = CORPUS_TOOLS.filter((t) => t.name === 'read_file')
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

  it('unreadable call markup leaves the text as written and asks for a repair in the same format', () => {
    const text = 'Reading.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}\n</tool_call>'
    expect(applyTextFallback({ text, toolCalls: [], usage }, tools)).toEqual({
      text,
      toolCalls: [],
      usage,
      toolCallRepair: {
        family: 'hermes',
        problem: expect.stringContaining('the JSON inside <tool_call> does not parse'),
        format: '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/index.ts"}}\n</tool_call>',
      },
    })
  })

  it('the Hermes system block lists every tool, and rendered calls parse back', () => {
    const simple = [
      {
        name: 'read_file',
        description: 'Read a file',
        parameters: { type: 'object', properties: { path: { type: 'string' } } },
      },
    ]
    expect(textToolPrompt(simple)).toBe(
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
    expect(parseTextToolCalls(rendered, tools).calls).toEqual([call('read_file', '{"path":"a"}')])
  })
})
