import { describe, expect, it } from 'vitest'
import { resultView } from './resultView'

describe('resultView', () => {
  it('shows a read as its path, line range and text, not JSON', () => {
    const view = resultView({
      status: 'ok',
      args: { path: 'a.py' },
      result: {
        ok: true,
        path: 'a.py',
        start_line: 1,
        end_line: 2,
        total_lines: 9,
        content: '1\tx = "a"\n2\ty',
      },
    })
    expect(view).toEqual({ kind: 'read', path: 'a.py', range: 'lines 1–2 of 9', content: '1\tx = "a"\n2\ty' })
  })

  it('shows a command as a terminal with its exit code, failed when it is not 0', () => {
    const view = resultView({
      status: 'error',
      args: { command: 'pytest -q' },
      result: { ok: false, error: 'exit 1', exit_code: 1, duration_ms: 450, output: 'F.\n1 failed' },
    })
    expect(view).toEqual({
      kind: 'terminal',
      command: 'pytest -q',
      output: 'F.\n1 failed',
      end: 'exit 1',
      failed: true,
    })
    expect(
      resultView({ status: 'ok', args: {}, result: { ok: true, exit_code: 0, output: '' } }),
    ).toMatchObject({
      kind: 'terminal',
      end: 'exit 0',
      failed: false,
    })
  })

  it('shows an applied change as a diff, an error as its words, anything else as JSON', () => {
    const diff = '--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a\n+b\n'
    expect(
      resultView({
        status: 'ok',
        args: {},
        result: { ok: true, path: 'a.py', action: 'modified', lines: 1, diff },
      }),
    ).toEqual({ kind: 'diff', path: 'a.py', summary: 'modified · 1 line', diff })
    // An edit's result says "+1 -1": the diff shown is the one the user approved.
    expect(
      resultView({
        status: 'ok',
        args: {},
        result: { ok: true, path: 'a.py', action: 'modified', lines: 1, diff: '+1 -1' },
        approval: { decision: 'accept', by: 'user', diff, requestedSeq: 3 },
      }),
    ).toEqual({ kind: 'diff', path: 'a.py', summary: 'modified · +1 -1 · 1 line', diff })
    expect(resultView({ status: 'error', args: {}, result: { ok: false, error: 'No such file' } })).toEqual({
      kind: 'error',
      message: 'No such file',
    })
    expect(resultView({ status: 'ok', args: {}, result: { ok: true, count: 2 } })).toMatchObject({
      kind: 'json',
    })
    expect(resultView({ status: 'running', args: {} })).toBeUndefined()
  })
})
