import { describe, expect, it } from 'vitest'
import { createDenyList } from './denylist'

// The literal pre-filter (createDenyList) must never turn away a path the matcher would deny.
describe('the deny list: the literal pre-filter turns away only what cannot match', () => {
  it('denies by the default patterns in any letter case, folders and bare names included', () => {
    const list = createDenyList()
    for (const rel of [
      '.git',
      '.git/config',
      'a/node_modules/x.js',
      'Dist/app.js',
      'k/Server.PEM',
      '.ssh/id',
    ])
      expect(list.isDenied(rel), rel).toBe(true)
    for (const rel of ['src/distance.ts', 'docs/keyboard.md', 'config/app.json', 'README.md'])
      expect(list.isDenied(rel), rel).toBe(false)
  })

  it("keeps a project's own patterns, those without a literal run (a class, a negation) included", () => {
    const classes = createDenyList({ extraDeny: ['secret[0-9].txt'] })
    expect(classes.isDenied('a/secret7.txt')).toBe(true)
    expect(classes.isDenied('a/secretx.txt')).toBe(false)
    const folders = createDenyList({ extraDeny: ['private/**', '*.sqlite'] })
    expect(folders.isDenied('Private/notes.md')).toBe(true)
    expect(folders.isDenied('data/App.SQLITE')).toBe(true)
    expect(folders.isDenied('src/privacy.ts')).toBe(false)
    expect(folders.reason('private/notes.md')).toBe('private/**')
  })
})
