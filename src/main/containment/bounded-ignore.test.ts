import ignore from 'ignore'
import { describe, expect, it } from 'vitest'
import { boundedIgnore } from './bounded-ignore'

describe('boundedIgnore', () => {
  it('answers as a plain matcher does, before and after it forgets its cache', () => {
    const patterns = ['node_modules/', '*.pem', 'build/', '!build/keep.txt', 'logs/**/*.log']
    const bounded = boundedIgnore(patterns, { ignorecase: true })
    const plain = ignore({ ignorecase: true }).add(patterns)
    // Past several rebuilds (one every 8,192 questions), asking about the same folders again.
    const names = ['a.ts', 'Key.PEM', 'keep.txt', 'x.log']
    const folders = ['', 'src/', 'node_modules/pkg/', 'build/', 'logs/deep/', 'src/build/']
    let asked = 0
    for (let i = 0; asked < 30_000; i++)
      for (const folder of folders)
        for (const name of names) {
          const rel = `${folder}${i % 7}/${name}`.replace(/^(\d)\//, '$1-')
          expect(bounded.test(rel)).toEqual(plain.test(rel))
          expect(bounded.ignores(rel)).toBe(plain.ignores(rel))
          asked += 2
        }
  })
})
