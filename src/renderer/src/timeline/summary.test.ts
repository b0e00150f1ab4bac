import { describe, expect, it } from 'vitest'
import { summarizeArgs } from './summary'

describe('summarizeArgs', () => {
  it('shows the path of file tools', () => {
    expect(summarizeArgs('write_file', { path: 'src/a.ts', content: 'x'.repeat(5000) })).toBe('src/a.ts')
    expect(summarizeArgs('edit_file', { path: 'src/a.ts', old_string: 'a', new_string: 'b' })).toBe(
      'src/a.ts',
    )
    expect(summarizeArgs('delete_file', { path: 'old.ts' })).toBe('old.ts')
  })

  it('adds line ranges to read_file and edit_lines', () => {
    expect(summarizeArgs('read_file', { path: 'a.ts' })).toBe('a.ts')
    expect(summarizeArgs('read_file', { path: 'a.ts', start_line: 10, end_line: 20 })).toBe('a.ts:10-20')
    expect(summarizeArgs('read_file', { path: 'a.ts', start_line: 10 })).toBe('a.ts:10+')
    expect(summarizeArgs('edit_lines', { path: 'a.ts', start_line: 3, end_line: 4, content: '' })).toBe(
      'a.ts:3-4',
    )
  })

  it('shows the first line of a command, without runs of spaces', () => {
    expect(summarizeArgs('run_command', { command: 'npm test  --  src/a.test.ts' })).toBe(
      'npm test -- src/a.test.ts',
    )
    expect(summarizeArgs('run_command', { command: '\ncd src\nls' })).toBe('cd src')
  })

  it('quotes a search query and says where it looked', () => {
    expect(summarizeArgs('search_in_files', { query: 'TODO', prefix: 'src', glob: '*.ts' })).toBe(
      '“TODO” · in src (*.ts)',
    )
    expect(summarizeArgs('search_in_files', { query: 'x' })).toBe('“x”')
  })

  it('describes calls without arguments in words', () => {
    expect(summarizeArgs('list_files', {})).toBe('whole project')
    expect(summarizeArgs('run_tests', {})).toBe('all tests')
    expect(summarizeArgs('run_tests', { path: 'src', filter: 'login' })).toBe('src · -t login')
    expect(summarizeArgs('git_diff', { staged: true })).toBe('staged')
    expect(summarizeArgs('git_diff', {})).toBe('unstaged changes')
    expect(summarizeArgs('run_build', {})).toBe('')
  })

  it('uses the commit subject, the symbol, the ref', () => {
    expect(summarizeArgs('git_commit', { message: 'Fix login\n\nDetails here' })).toBe('Fix login')
    expect(summarizeArgs('find_references', { symbol: 'Store.save' })).toBe('Store.save')
    expect(summarizeArgs('git_show', { ref: 'HEAD~1' })).toBe('HEAD~1')
    expect(summarizeArgs('get_function', { path: 'a.ts', name: 'save' })).toBe('a.ts · save')
  })

  it('falls back to the most telling argument of unknown tools, then to key=value pairs', () => {
    expect(summarizeArgs('mcp__fetch', { url: 'https://x.dev', timeout: 3 })).toBe('https://x.dev')
    expect(summarizeArgs('mcp__calc', { a: 1, b: 'two', deep: { c: 3 } })).toBe('a=1 b=two')
  })

  it('cuts long values to one line', () => {
    const long = summarizeArgs('run_command', { command: 'echo ' + 'x'.repeat(500) })
    expect(long.length).toBe(120)
    expect(long.endsWith('…')).toBe(true)
  })

  it('copes with arguments that did not parse', () => {
    expect(summarizeArgs('read_file', '{"path": "a.ts"')).toBe('{"path": "a.ts"')
    expect(summarizeArgs('read_file', null)).toBe('')
    expect(summarizeArgs('read_file', [1, 2])).toBe('')
    expect(summarizeArgs('read_file', { path: 42 })).toBe('42')
  })
})
