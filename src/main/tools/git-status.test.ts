import { describe, expect, it } from 'vitest'
import { parseStatusV2 } from './git-status'

/* The porcelain v2 parser behind git_status; the tool itself is tested on real repositories in git.test.ts. */

describe('parseStatusV2', () => {
  it('reads branch headers, renames, conflicts, untracked and paths with spaces', () => {
    const out = [
      '# branch.oid 0123',
      '# branch.head main',
      '# branch.upstream origin/main',
      '# branch.ab +2 -1',
      '1 .M N... 100644 100644 100644 aaa aaa dir/a file.txt',
      '2 R. N... 100644 100644 100644 aaa aaa R100 new name.txt',
      'old name.txt',
      'u UU N... 100644 100644 100644 100644 aaa bbb ccc c.txt',
      '? new dir/',
      '',
    ].join('\0')
    expect(parseStatusV2(out)).toEqual({
      header: { oid: '0123', head: 'main', upstream: 'origin/main', ahead: 2, behind: 1 },
      entries: [
        { path: 'dir/a file.txt', index: '.', workTree: 'M', kind: 'changed' },
        { path: 'new name.txt', from: 'old name.txt', index: 'R', workTree: '.', kind: 'changed' },
        { path: 'c.txt', index: 'U', workTree: 'U', kind: 'conflicted' },
        { path: 'new dir/', index: '?', workTree: '?', kind: 'untracked' },
      ],
    })
  })
})
