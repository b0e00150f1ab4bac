import ignore from 'ignore'
import { describe, expect, it } from 'vitest'
import { createDenyList, isSecretName, SECRETS } from './denylist'

/*
 * A deny list turns most paths away by its patterns' literal runs before asking the matcher
 * (a listing of a big tree filtered through the matcher alone held the main thread for
 * seconds). That shortcut must never change an answer: each list here is checked against a
 * plain `ignore` matcher of the same patterns, asked the same way (as a file, then as a folder).
 */

const PATHS = [
  'src/index.ts',
  'README.md',
  '.env',
  'app/.ENV',
  'app/.Env.Local',
  'deploy/prod.env',
  'config/.envrc',
  'certs/Server.PEM',
  'keys/deploy.key',
  'a/b/c/ID_RSA.pub',
  'home/.ssh/config',
  'home/.SSH/known_hosts',
  'x/.aws/credentials',
  'x/.AWS/CREDENTIALS',
  'x/aws/credentials',
  'y/.docker/config.json',
  'y/docker/config.json',
  'k/.kube/config',
  'k/kube/config',
  '.git',
  '.git/HEAD',
  '.github/workflows/ci.yml',
  '.gitignore',
  'packages/a/node_modules/b/index.js',
  'packages/a/NODE_MODULES',
  'packages/dist/x.js',
  'packages/distance.js',
  'gh/hosts.yml',
  'conf/gh/hosts.yml',
  'deep/er/.config/gcloud/application_default_credentials.json',
  'infra/main.tfstate.backup',
  'notes/keyboard.key.txt',
  'secret1.txt',
  'secretA.txt',
  'keep.env',
  'other/keep.env',
]

function reference(patterns: readonly string[]): (rel: string) => boolean {
  const matcher = ignore({ ignorecase: true }).add([...patterns])
  return (rel) => matcher.test(rel).ignored || matcher.test(`${rel}/`).ignored
}

function expectSameAnswers(patterns: readonly string[], isDenied: (rel: string) => boolean): void {
  const plain = reference(patterns)
  const differ = PATHS.filter((p) => isDenied(p) !== plain(p))
  expect(differ).toEqual([])
}

describe('deny list', () => {
  it('answers as the matcher alone for the default list and the secrets list', () => {
    const list = createDenyList()
    expectSameAnswers(list.patterns, list.isDenied)
    expectSameAnswers(SECRETS.patterns, SECRETS.isDenied)
    // The shortcut is case-blind, as the matcher: a key in capitals is still a key.
    expect(list.isDenied('x/.AWS/CREDENTIALS')).toBe(true)
    expect(list.isDenied('home/.SSH/known_hosts')).toBe(true)
    expect(list.isDenied('packages/distance.js')).toBe(false)
    expect(isSecretName('./certs/Server.PEM')).toBe(true)
    expect(isSecretName('src/index.ts')).toBe(false)
  })

  it('answers as the matcher alone when a pattern has no literal run (a class, a negation)', () => {
    for (const extraDeny of [['secret[0-9].txt'], ['!keep.env'], ['*'], ['**/*.txt'], ['notes/']]) {
      const list = createDenyList({ extraDeny })
      expectSameAnswers(list.patterns, list.isDenied)
    }
    expect(createDenyList({ extraDeny: ['secret[0-9].txt'] }).isDenied('secret1.txt')).toBe(true)
    expect(createDenyList({ extraDeny: ['!keep.env'] }).isDenied('other/keep.env')).toBe(false)
    expect(createDenyList({ extraDeny: ['*'] }).isDenied('README.md')).toBe(true)
  })
})

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
