import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { sha256 } from '../snapshot/blobs'
import { applyPlan, type RestorePlan } from './restore-apply'

let root: string
let outside: string

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-apply-root-')))
  outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-apply-outside-')))
})

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true })
  fs.rmSync(outside, { recursive: true, force: true })
})

/** Applies writes of these contents (path → [content, mode]). */
function apply(files: Record<string, [string, number]>): void {
  const blobs = new Map(Object.values(files).map(([c]) => [sha256(c), Buffer.from(c)]))
  const plan: RestorePlan = {
    write: Object.entries(files).map(([p, [c, mode]]) => ({ path: p, hash: sha256(c), mode })),
    delete: [],
  }
  applyPlan(root, plan, (hash) => blobs.get(hash)!)
}

describe('applyPlan writing files', () => {
  it('rewrites a plain file in place: same inode, exact content when shorter, the planned mode', () => {
    const file = path.join(root, 'a.sh')
    fs.writeFileSync(file, 'a much longer content than the restored one\n', { mode: 0o644 })
    const ino = fs.statSync(file).ino
    apply({ 'a.sh': ['echo hi\n', 0o755], 'new/b.txt': ['b\n', 0o644] })
    expect(fs.readFileSync(file, 'utf8')).toBe('echo hi\n')
    expect(fs.statSync(file).ino).toBe(ino)
    expect(fs.statSync(file).mode & 0o7777).toBe(0o755)
    expect(fs.readFileSync(path.join(root, 'new/b.txt'), 'utf8')).toBe('b\n')
    expect(fs.readdirSync(root).sort()).toEqual(['a.sh', 'new'])
  })

  it('replaces a link instead of writing through it, and never writes a file shared by a hard link', () => {
    const target = path.join(outside, 'target.txt')
    fs.writeFileSync(target, 'outside\n')
    fs.symlinkSync(target, path.join(root, 'link.txt'))
    const shared = path.join(outside, 'shared.txt')
    fs.writeFileSync(shared, 'shared\n')
    fs.linkSync(shared, path.join(root, 'hard.txt'))

    apply({ 'link.txt': ['restored link\n', 0o644], 'hard.txt': ['restored hard\n', 0o644] })
    expect(fs.lstatSync(path.join(root, 'link.txt')).isFile()).toBe(true)
    expect(fs.readFileSync(path.join(root, 'link.txt'), 'utf8')).toBe('restored link\n')
    expect(fs.readFileSync(target, 'utf8')).toBe('outside\n')
    expect(fs.readFileSync(path.join(root, 'hard.txt'), 'utf8')).toBe('restored hard\n')
    expect(fs.readFileSync(shared, 'utf8')).toBe('shared\n')
  })
})
