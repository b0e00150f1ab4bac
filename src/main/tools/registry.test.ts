import { describe, expect, it } from 'vitest'
import { allTools, findTool, parseToolCall, toolSpecs, unknownToolError } from './registry'
import type { ToolDefinition } from './types'

const tool = (name: string): ToolDefinition => {
  const t = findTool(name)
  if (!t) throw new Error(`no tool ${name}`)
  return t
}

describe('registry', () => {
  it('holds exactly the read, edit, review, code, git and exec families', () => {
    expect(allTools.map((t) => `${t.family}:${t.name}:${t.mutating}`)).toEqual([
      'read:list_files:false',
      'read:read_file:false',
      'read:file_info:false',
      'read:search_in_files:false',
      'edit:write_file:true',
      'edit:edit_file:true',
      'edit:edit_lines:true',
      'edit:delete_file:true',
      'review:get_baseline_info:false',
      'review:list_changed_files:false',
      'review:read_file_original:false',
      'review:diff_file_against_original:false',
      'code:get_structure:false',
      'code:get_function:false',
      'code:get_class:false',
      'code:find_definition:false',
      'code:find_references:false',
      'code:get_dependencies:false',
      'code:get_dependents:false',
      'code:get_complexity:false',
      'code:get_todos:false',
      'git:git_status:false',
      'git:git_diff:false',
      'git:git_log:false',
      'git:git_show:false',
      'git:git_commit:true',
      'exec:run_command:true',
      'exec:run_tests:true',
      'exec:run_build:true',
      'exec:run_lint:true',
    ])
  })

  it('finds tools by name or alias', () => {
    expect(findTool('create_file')?.name).toBe('write_file')
    expect(findTool('functions.read_file')?.name).toBe('read_file')
    expect(findTool('rm_rf')).toBeUndefined()
    expect(findTool('read_file', [])).toBeUndefined()
  })

  it('turns schemas into JSON Schema parameters with the descriptions', () => {
    const specs = toolSpecs()
    expect(specs.map((s) => s.name)).toEqual(allTools.map((t) => t.name))
    expect(specs.find((s) => s.name === 'read_file')).toEqual({
      name: 'read_file',
      description: tool('read_file').description,
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Path of the file to read, relative to the project root.' },
          start_line: {
            type: 'integer',
            minimum: 1,
            description: 'First line to show (1-based). Default 1.',
          },
          end_line: {
            type: 'integer',
            minimum: 1,
            description: 'Last line to show (1-based, inclusive). Default: end of file.',
          },
        },
        required: ['path'],
        additionalProperties: false,
      },
    })
    expect(specs.find((s) => s.name === 'get_baseline_info')?.parameters).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: false,
    })
    for (const spec of specs) expect(JSON.stringify(spec)).not.toContain('$schema')
  })

  it('lists the available tools for an unknown name, with a suggestion', () => {
    expect(unknownToolError('read_files')).toBe(
      'There is no tool named "read_files". Did you mean "read_file"? Available tools: list_files, read_file, file_info, search_in_files, write_file, edit_file, edit_lines, delete_file, get_baseline_info, list_changed_files, read_file_original, diff_file_against_original, get_structure, get_function, get_class, find_definition, find_references, get_dependencies, get_dependents, get_complexity, get_todos, git_status, git_diff, git_log, git_show, git_commit, run_command, run_tests, run_build, run_lint.',
    )
    expect(unknownToolError('zzz', [tool('read_file')])).toBe(
      'There is no tool named "zzz". Available tools: read_file.',
    )
  })
})

describe('parseToolCall', () => {
  it('accepts valid JSON and coerces numbers and booleans sent as strings, and null as absent', () => {
    expect(parseToolCall(tool('read_file'), '{"path":"a.ts","start_line":"3","end_line":10}')).toEqual({
      ok: true,
      input: { path: 'a.ts', start_line: 3, end_line: 10 },
    })
    expect(
      parseToolCall(
        tool('search_in_files'),
        '{"query":"x","regex":"true","case_sensitive":"false","limit_matches":null}',
      ),
    ).toEqual({
      ok: true,
      input: { query: 'x', regex: true, case_sensitive: false, limit_matches: undefined },
    })
    expect(parseToolCall(tool('get_baseline_info'), '')).toEqual({ ok: true, input: {} })
    expect(parseToolCall(tool('read_file'), '```json\n{"path":"a.ts"}\n```')).toEqual({
      ok: true,
      input: { path: 'a.ts' },
    })
    expect(parseToolCall(tool('read_file'), JSON.stringify(JSON.stringify({ path: 'a.ts' })))).toEqual({
      ok: true,
      input: { path: 'a.ts' },
    })
  })

  it('explains malformed JSON', () => {
    const result = parseToolCall(tool('read_file'), '{"path": "a.ts",')
    expect(result.ok).toBe(false)
    expect((result as { error: string }).error).toMatch(
      /^The arguments for read_file are not valid JSON \(.+\)\. Send a single JSON object\. read_file takes path \(string, required\), start_line \(integer, optional\), end_line \(integer, optional\)\.$/,
    )
    expect(parseToolCall(tool('read_file'), '["a.ts"]')).toEqual({
      ok: false,
      error:
        'The arguments for read_file must be a JSON object, not an array. read_file takes path (string, required), start_line (integer, optional), end_line (integer, optional).',
    })
  })

  it('names missing fields and wrong types with the expected type', () => {
    expect(parseToolCall(tool('edit_file'), '{"path":"a.ts","old_string":"x"}')).toEqual({
      ok: false,
      error:
        'Invalid arguments for edit_file: missing required argument "new_string" (string). edit_file takes path (string, required), old_string (string, required), new_string (string, required).',
    })
    expect(parseToolCall(tool('read_file'), '{"path":42,"start_line":"ten"}')).toEqual({
      ok: false,
      error:
        'Invalid arguments for read_file: argument "path" must be a string, got number 42; argument "start_line" must be an integer, got the string "ten". read_file takes path (string, required), start_line (integer, optional), end_line (integer, optional).',
    })
    expect(parseToolCall(tool('search_in_files'), '{"query":"x","regex":"yes"}')).toMatchObject({
      ok: false,
      error: expect.stringContaining('argument "regex" must be a boolean, got the string "yes"'),
    })
    expect(parseToolCall(tool('read_file'), '{"path":"a","start_line":0}')).toMatchObject({
      ok: false,
      error: expect.stringContaining('argument "start_line" (integer): Too small'),
    })
  })
})

describe('unknown tool suggestions', () => {
  it('suggests for typos and reordered words only', () => {
    expect(unknownToolError('file_read')).toContain('Did you mean "read_file"?')
    expect(unknownToolError('edit_fil')).toContain('Did you mean "edit_file"?')
    expect(unknownToolError('launch_rockets')).not.toContain('Did you mean')
  })
})
