import { afterEach, describe, expect, it } from 'vitest'
import { CORPUS_TOOLS } from '../../../../test/toolcall-corpus'
import { startFakeModelServer, type FakeModelServer } from '../../../../test/fake-model-server'
import { createProvider } from '../index'
import { applyTextToolCalls, readToolCalls, repairMessage } from '.'
import { maskReasoning } from './reasoning'
import { normaliseName } from './schema-check'

/*
 * The pipeline's own rules, one at a time (the corpora check them on real outputs):
 * names, schema leniency, reasoning, the act-not-example rule, the text left behind,
 * and reasoning fields that providers keep apart from the content.
 */

const read = (text: string) => readToolCalls(text, CORPUS_TOOLS)
const args = (text: string) =>
  read(text).calls.map((c) => ({ name: c.name, arguments: JSON.parse(c.arguments) as unknown }))
const hermes = (name: string, a: unknown) =>
  `<tool_call>${JSON.stringify({ name, arguments: a })}</tool_call>`

describe('names', () => {
  it('drops the namespaces and indexes models add', () => {
    for (const written of [
      'functions.read_file',
      'functions.read_file:0',
      'default_api.read_file',
      ' read_file ',
      'read_file',
    ])
      expect(normaliseName(written)).toBe('read_file')
    expect(args(hermes('functions.read_file:3', { path: 'a' }))).toEqual([
      { name: 'read_file', arguments: { path: 'a' } },
    ])
  })

  it('only tools offered in this request count; an alias counts for its tool', () => {
    const readOnly = CORPUS_TOOLS.filter((t) => t.name !== 'write_file')
    const text = hermes('create_file', { path: 'a', content: 'x' })
    expect(readToolCalls(text, readOnly).calls).toEqual([])
    expect(readToolCalls(text, readOnly).broken[0].problem).toContain(
      '"create_file" is not one of the tools offered',
    )
    expect(args(text)).toEqual([{ name: 'write_file', arguments: { path: 'a', content: 'x' } }])
  })
})

describe('arguments against the schema', () => {
  it('converts numbers and booleans written as text, drops null for an optional argument', () => {
    expect(
      args(
        hermes('search_in_files', {
          query: 'x',
          limit_matches: '5',
          regex: 'TRUE',
          prefix: null,
          glob: '*.ts',
        }),
      ),
    ).toEqual([
      { name: 'search_in_files', arguments: { query: 'x', limit_matches: 5, regex: true, glob: '*.ts' } },
    ])
  })

  it('a number where text is expected becomes text; a fraction for an integer does not pass', () => {
    expect(args(hermes('run_command', { command: 42 }))).toEqual([
      { name: 'run_command', arguments: { command: '42' } },
    ])
    expect(read(hermes('read_file', { path: 'a', start_line: '1.5' })).broken[0].problem).toContain(
      'argument "start_line" must be an integer',
    )
  })

  it('refuses unknown arguments where the schema does, and a missing required one', () => {
    expect(read(hermes('read_file', { path: 'a', lines: 3 })).broken[0].problem).toBe(
      'read_file: unknown argument "lines"',
    )
    expect(read(hermes('edit_file', { path: 'a', old_string: 'x' })).broken[0].problem).toBe(
      'edit_file: missing required argument "new_string"',
    )
  })
})

describe('reasoning', () => {
  it('is blanked in place, so offsets into the answer stay true', () => {
    const text = 'a<think>\nb\n</think>c'
    const masked = maskReasoning(text)
    expect(masked).toHaveLength(text.length)
    expect(masked).toBe(`a${' '.repeat('<think>'.length)}\n \n${' '.repeat('</think>'.length)}c`)
  })

  it('harmony: the analysis channel is reasoning, the final channel is not', () => {
    const text =
      '<|channel|>analysis<|message|>{"name": "git_status", "arguments": {}}<|end|><|start|>assistant<|channel|>final<|message|>{"name": "git_status", "arguments": {}}'
    expect(maskReasoning(text).indexOf('git_status')).toBe(text.lastIndexOf('git_status'))
  })
})

describe('act, not example', () => {
  const call = '{"name": "read_file", "arguments": {"path": "a.ts"}}'

  it('bare JSON counts after a lead-in of two sentences at most, and with nothing after it', () => {
    expect(args(`Let me look. I will read it:\n${call}`)).toHaveLength(1)
    expect(args(`Let me look. I will read it. Then decide:\n${call}`)).toEqual([])
    expect(args(`${call}\nThen I will decide.`)).toEqual([])
    expect(args(`${'A lead-in that goes on and on '.repeat(8)}:\n${call}`)).toEqual([])
  })

  it('markup counts anywhere in prose, but not in code shown in prose', () => {
    const markup = hermes('read_file', { path: 'a.ts' })
    expect(args(`First this.\n${markup}\nThen I will decide.`)).toHaveLength(1)
    expect(args(`Write \`${markup}\` to read a file.`)).toEqual([])
    expect(args(`Like this:\n\`\`\`\n${markup}\n\`\`\`\nand the server runs it.`)).toEqual([])
    // A fence around nothing but the call, as the whole answer, is the call.
    expect(args(`\`\`\`xml\n${markup}\n\`\`\``)).toHaveLength(1)
  })

  it('the text keeps the prose when calls run, and stays byte for byte when none does', () => {
    expect(read(`Reading.\n\n\n${hermes('git_status', {})}<|im_end|>`).text).toBe('Reading.')
    const example = `Example:\n\`\`\`json\n${call}\n\`\`\`\nThat reads a file.  \n`
    expect(read(example)).toEqual({ calls: [], text: example, broken: [] })
  })
})

describe('a well-formed call inside prose', () => {
  const usage = { inputTokens: 0, outputTokens: 0 }
  const apply = (text: string) => applyTextToolCalls({ text, toolCalls: [], usage }, CORPUS_TOOLS)

  // vLLM tests/tool_parsers/test_llama3_json_tool_parser.py::test_extract_tool_calls_simple and its
  // `;`-separated multi-call case: Llama 3 JSON with prose around it stays text, and is asked about.
  it('runs nothing, keeps the text, and asks once naming the call as written', () => {
    const simple = 'Here is the result: {"name": "git_status", "parameters": {}} Would you like to know more?'
    const turn = apply(simple)
    expect(turn.toolCalls).toEqual([])
    expect(turn.text).toBe(simple)
    expect(turn.toolCallRepair).toEqual({
      kind: 'in-prose',
      tools: ['git_status'],
      problem: 'a call to git_status inside other text was not run',
      format: '{"name": "git_status", "parameters": {}}',
      family: 'in-prose',
    })
    const message = repairMessage(turn.toolCallRepair!, ['git_status'])
    expect(message).toContain('To run git_status, reply with only the call')
    expect(message).toContain('{"name": "git_status", "parameters": {}}')
    const many =
      'Here are the results: {"name": "search_in_files", "parameters": {"query": "a"}}; {"name": "git_status", "parameters": {}} Would you like to know more?'
    expect(apply(many).toolCallRepair).toMatchObject({
      kind: 'in-prose',
      tools: ['search_in_files', 'git_status'],
    })
  })

  it('does not ask about a fenced example, an unoffered tool or a call that runs', () => {
    expect(
      apply(
        `Example:\n\`\`\`json\n${JSON.stringify({ name: 'read_file', arguments: { path: 'a' } })}\n\`\`\`\nThat reads.`,
      ).toolCallRepair,
    ).toBeUndefined()
    expect(
      apply('Here: {"name": "launch_rockets", "parameters": {}} and more.').toolCallRepair,
    ).toBeUndefined()
    expect(apply('{"name": "git_status", "parameters": {}}').toolCalls).toHaveLength(1)
  })
})

describe('the text shown once calls run', () => {
  const call =
    '<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path": "a.ts"}<|call|>'

  it('drops harmony headers and terminators around the answer, keeps its words', () => {
    const text = `<|start|>assistant<|channel|>final<|message|>Reading the file now.<|end|>${call}`
    expect(read(text)).toMatchObject({ calls: [{ name: 'read_file' }], text: 'Reading the file now.' })
  })

  it('keeps reasoning as written, its own closing token included', () => {
    const analysis = '<|channel|>analysis<|message|>I need a.ts first.<|end|>'
    expect(read(`${analysis}${call}`).text).toBe(analysis)
    const think = '<think>I need a.ts first.</think>'
    expect(read(`${think}\n${hermes('read_file', { path: 'a.ts' })}<|im_end|>`).text).toBe(think)
  })

  it('keeps the text byte for byte when nothing runs', () => {
    const text = `<|start|>assistant<|channel|>final<|message|>Done.<|return|>`
    expect(read(text)).toMatchObject({ calls: [], text })
  })
})

describe('calls written as Python', () => {
  it('Llama lists get the same reader as LFM2 and Gemma: unescaped inner quotes, sets, escapes', () => {
    // The quote case after vLLM's LFM2 parser tests (Apache-2.0): the model leaves inner quotes unescaped.
    expect(args("[run_command(command='sed -n '1,5p' src/a.ts')]")).toEqual([
      { name: 'run_command', arguments: { command: "sed -n '1,5p' src/a.ts" } },
    ])
    expect(args("[run_command(command='printf \\x41\\t')]")).toEqual([
      { name: 'run_command', arguments: { command: 'printf A\t' } },
    ])
  })
})

describe('broken markup', () => {
  it('valid JSON inside a broken block stays text and does not hide the block from the repair', () => {
    const line = (path: string) => JSON.stringify({ name: 'read_file', arguments: { path } })
    for (const text of [
      `<tool_calls>\n${line('a.ts')}\n{invalid json here}\n${line('b.ts')}\n</tool_calls>`,
      `<|tools_prefix|>[${line('a.ts')}, {invalid}]<|tools_suffix|>`,
      `<seed:tool_call>\n${line('a.ts')}\n{invalid}\n</seed:tool_call>`,
    ]) {
      const result = read(text)
      expect(result.calls).toEqual([])
      expect(result.broken.length).toBeGreaterThan(0)
      expect(result.text).toBe(text)
    }
  })

  it('generic JSON between Apertus and Seed-OSS markers still runs', () => {
    const call = { name: 'read_file', arguments: { path: 'a.ts' } }
    for (const text of [
      `<|tools_prefix|>[${JSON.stringify(call)}]<|tools_suffix|>`,
      `<seed:tool_call>\n${JSON.stringify(call)}\n</seed:tool_call>`,
    ])
      expect(args(text)).toEqual([call])
  })
})

describe('the repair message', () => {
  it('says what failed, that nothing ran, the format and the tools', () => {
    const text = repairMessage(
      {
        problem: 'the JSON inside <tool_call> does not parse (x)',
        format: '<tool_call>\n{}\n</tool_call>',
        family: 'hermes',
      },
      ['read_file', 'git_status'],
    )
    expect(text).toBe(
      [
        'Your last answer contains a tool call that could not be read: the JSON inside <tool_call> does not parse (x). Nothing was run.',
        'To call a tool, write the call again exactly in this format (valid JSON, one call per block, only these tools: read_file, git_status):',
        '',
        '<tool_call>\n{}\n</tool_call>',
        '',
        'If you did not mean to call a tool, answer without any tool-call markup.',
      ].join('\n'),
    )
  })
})

describe('reasoning fields kept apart by the server are never parsed', () => {
  let server: FakeModelServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })
  const signal = new AbortController().signal
  const handlers = { onText: () => {}, onTraffic: () => {} }
  const request = { system: '', transcript: [{ role: 'user' as const, text: 'hi' }], tools: CORPUS_TOOLS }
  const considered = '<tool_call>{"name": "run_command", "arguments": {"command": "ls"}}</tool_call>'

  it('Chat Completions: reasoning_content and reasoning', async () => {
    const chunk = (delta: unknown, finish: string | null = null) =>
      JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })
    server = await startFakeModelServer({
      turns: [
        {
          raw: `data: ${chunk({ reasoning_content: considered })}\n\ndata: ${chunk({ reasoning: considered })}\n\ndata: ${chunk({ content: 'No need.' })}\n\ndata: ${chunk({}, 'stop')}\n\ndata: [DONE]\n\n`,
        },
      ],
    })
    const provider = createProvider({ provider: 'openai-chat', model: 'm', baseUrl: server.v1Url })
    const turn = await provider.streamTurn(request, handlers, signal)
    expect(turn).toMatchObject({ text: 'No need.', toolCalls: [] })
    expect(turn.toolCallRepair).toBeUndefined()
  })

  it('Ollama: message.thinking', async () => {
    const line = (message: unknown, done = false) =>
      JSON.stringify({ model: 'm', message: { role: 'assistant', ...(message as object) }, done })
    server = await startFakeModelServer({
      turns: [
        {
          raw: `${line({ content: '', thinking: considered })}\n${line({ content: 'No need.' })}\n${line({ content: '' }, true)}\n`,
          contentType: 'application/x-ndjson',
        },
      ],
    })
    const provider = createProvider({ provider: 'ollama', model: 'm', baseUrl: server.url })
    const turn = await provider.streamTurn(request, handlers, signal)
    expect(turn).toMatchObject({ text: 'No need.', toolCalls: [] })
    expect(turn.toolCallRepair).toBeUndefined()
  })
})
