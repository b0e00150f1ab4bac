import { describe, expect, it } from 'vitest'
import { sessionTree } from './tree'

describe('sessionTree', () => {
  it('puts forks under their parent, newest first, and orphans at the top', () => {
    const s = (id: string, parentId: string | null, createdAt: number) => ({ id, parentId, createdAt })
    const tree = sessionTree([
      s('a', null, 1),
      s('b', null, 5),
      s('a1', 'a', 2),
      s('a2', 'a', 3),
      s('x', 'gone', 4),
    ])
    expect(tree.map((t) => `${'-'.repeat(t.depth)}${t.item.id}`)).toEqual(['b', 'x', 'a', '-a2', '-a1'])
  })
})
