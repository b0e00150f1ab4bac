import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { findProjectSecrets } from './project-secrets'
import { listUnignoredDirectories } from '../snapshot/directories'
import { createGitignoreMatcher } from './gitignore'
import { createSandbox } from './sandbox'

/** A chain d/d/…/d `depth` folders deep under a fresh temp root; returns the root and the chain's path. */
function makeChain(depth: number): { root: string; chain: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-deep-'))
  onTestFinished(() => fs.rmSync(root, { recursive: true, force: true }))
  const chain = Array.from({ length: depth }, () => 'd').join('/')
  fs.mkdirSync(path.join(root, chain), { recursive: true })
  return { root, chain }
}

describe('gitignore matcher on a deep folder chain', () => {
  it('judges files at the bottom of a 300-deep chain by the rules of every ancestor', () => {
    const { root, chain } = makeChain(300)
    const mid = chain.split('/').slice(0, 150).join('/')
    fs.writeFileSync(path.join(root, '.gitignore'), '*.log\n')
    fs.writeFileSync(path.join(root, mid, '.gitignore'), '!keep.log\ngen/\n')
    fs.mkdirSync(path.join(root, chain, 'gen'))
    const ignored = createGitignoreMatcher(root)
    // Every folder of the chain, top down, as a walk asks: none is ignored.
    const parts = chain.split('/')
    for (let i = 1; i <= parts.length; i++) expect(ignored(parts.slice(0, i).join('/'))).toBe(false)
    expect(ignored(`${chain}/a.log`)).toBe(true)
    expect(ignored(`${chain}/keep.log`)).toBe(false) // re-included 150 levels up
    expect(ignored(`${chain}/a.ts`)).toBe(false)
    expect(ignored(`${chain}/gen`)).toBe(true)
    expect(ignored(`${chain}/gen/x.ts`)).toBe(true)
    expect(ignored(`${mid}/keep.log`)).toBe(false)
    expect(ignored('d/keep.log')).toBe(true) // above the re-including .gitignore
  })

  it('sees at once a .gitignore added a few levels up after the folders below were judged', () => {
    // Up to 16 levels above a path (and the root) a new .gitignore is seen at once; farther up,
    // within a second (docs/sandbox.md).
    const { root, chain } = makeChain(300)
    const ignored = createGitignoreMatcher(root)
    expect(ignored(`${chain}/x.tmp`)).toBe(false)
    const mid = chain.split('/').slice(0, 290).join('/')
    fs.writeFileSync(path.join(root, mid, '.gitignore'), 'd/\n')
    // Every folder below the new rule is ignored now, though the verdicts above were kept.
    expect(ignored(`${chain}/x.tmp`)).toBe(true)
    expect(ignored(`${mid}/d`)).toBe(true)
    expect(ignored(mid)).toBe(false)
    fs.unlinkSync(path.join(root, mid, '.gitignore'))
    expect(ignored(`${chain}/x.tmp`)).toBe(false)
  })

  it('skips a path longer than PATH_MAX instead of failing, and the rest of the tree works', async () => {
    // 24 folders of 200 characters, a file in each: 4,824 bytes, past Linux's PATH_MAX of 4,096. Made with the
    // shell's relative cd and removed with rm -rf, which both work one folder at a time.
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-long-'))
    onTestFinished(() => {
      execFileSync('rm', ['-rf', root])
    })
    const name = 'x'.repeat(200)
    const script = `for i in $(seq 1 24); do mkdir ${name} && cd ${name} && echo hi > f${name} || exit 1; done`
    execFileSync('bash', ['-c', script], { cwd: root })
    fs.writeFileSync(path.join(root, 'top.txt'), 'hi\n')
    const sandbox = await createSandbox(root)
    const tooLong = Array.from({ length: 24 }, () => name).join('/')
    expect(sandbox.isIgnored(tooLong)).toBe(true)
    expect(sandbox.isIgnored(`${tooLong}/f${name}`)).toBe(true)
    expect(sandbox.isIgnored('top.txt')).toBe(false)
    const dirs = await listUnignoredDirectories(sandbox.root, (rel) => sandbox.isIgnored(rel))
    // The folders that can be reached are listed; the ones past the limit are not.
    expect(dirs.length).toBeGreaterThan(15)
    expect(dirs.every((d) => path.join(sandbox.root, d).length < 4096)).toBe(true)
    const { files } = await sandbox.listFiles()
    expect(files).toContain('top.txt')
    expect(files.length).toBeGreaterThan(15)
    // The secrets walk before each command lists the last folder it can and goes on.
    expect(findProjectSecrets(sandbox.root).secrets).toEqual([])
  })
})
