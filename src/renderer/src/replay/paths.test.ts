import { describe, expect, it } from 'vitest'
import { changedPaths } from './paths'

describe('changedPaths', () => {
  it('reads created, modified, deleted and binary files from a unified diff', () => {
    const diff = [
      '--- a/src/a.ts',
      '+++ b/src/a.ts',
      '@@ -1 +1 @@',
      '-x',
      '+y',
      '--- /dev/null',
      '+++ b/new.txt',
      '--- a/gone.txt',
      '+++ /dev/null',
      'Binary file img.png changed',
    ].join('\n')
    expect(changedPaths(diff)).toEqual(['src/a.ts', 'new.txt', 'gone.txt', 'img.png'])
  })
})
