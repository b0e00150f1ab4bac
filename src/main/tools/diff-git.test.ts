import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { unifiedDiff } from '../../shared/diff'

// The shared diff (src/shared/diff.ts) checked against real git. It lives here
// because src/shared may not import Node, even in tests.

/** git's own unified diff of two texts, without its `diff --git`/`index` preamble. */
function gitDiff(before: string, after: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-diff-'))
  fs.writeFileSync(path.join(dir, 'a'), before)
  fs.writeFileSync(path.join(dir, 'b'), after)
  let out = ''
  try {
    execFileSync('git', ['diff', '--no-index', '--no-color', '--diff-algorithm=myers', 'a', 'b'], {
      cwd: dir,
    })
  } catch (err) {
    out = (err as { stdout: Buffer }).stdout.toString()
  }
  fs.rmSync(dir, { recursive: true })
  // Drop git's function-context text after each hunk header.
  return out.slice(out.indexOf('@@')).replace(/^(@@ [^@]+ @@).*$/gm, '$1')
}

const body = (d: string) => d.slice(d.indexOf('@@'))

describe('unifiedDiff against git diff --no-index', () => {
  it('matches git on hunks, context merging and missing final newlines', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`)
    const edited = [...lines]
    edited[2] = 'changed 3'
    edited[8] = 'changed 9' // 6 lines apart: one hunk
    edited.splice(30, 1) // far away: a second hunk
    edited.splice(35, 0, 'inserted')
    const cases: [string, string][] = [
      [lines.join('\n') + '\n', edited.join('\n') + '\n'],
      ['a\nb', 'a\nb\n'],
      ['a\nb\n', 'a\nc'],
      ['', 'new\n'],
      ['x\n', 'x\ny\nz\n'],
      [lines.join('\n') + '\n', lines.slice(5).join('\n') + '\n'],
    ]
    for (const [before, after] of cases)
      expect(body(unifiedDiff('f', before, after)), JSON.stringify([before, after])).toBe(
        gitDiff(before, after),
      )
  })
})
