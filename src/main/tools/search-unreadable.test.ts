import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { listFilesTool, searchInFilesTool } from './read'
import { makeContext, makeProject } from './test-support'

/**
 * A file no one can read, root included: it lies below a folder chain longer than PATH_MAX
 * (4,096 bytes on Linux), so opening or listing it fails with ENAMETOOLONG whoever asks —
 * root reads a mode-000 file, but not this. Built with the shell's relative `cd`, which has
 * no length limit, and removed with `rm -rf`, which walks relative to each folder (Node's
 * recursive rm builds whole paths and fails on it).
 */
function makeUnreachableFile(root: string, top: string, content: string): void {
  const name = 'x'.repeat(200)
  const script = `mkdir ${top} && cd ${top} && for i in $(seq 1 24); do mkdir ${name} && cd ${name} || exit 1; done; printf '%s' "$1" > found.txt`
  execFileSync('bash', ['-c', script, 'bash', content], { cwd: root })
  onTestFinished(() => {
    execFileSync('rm', ['-rf', path.join(root, top)])
  })
}

interface SearchResult {
  ok: boolean
  matches?: { path: string }[]
  unreadable?: { path: string; reason: string }[]
  note?: string
  error?: string
}

describe('search_in_files over paths it cannot read', () => {
  it('returns the matches it could read, and names the path it could not and why', async () => {
    const root = makeProject({ 'ok.txt': 'needle\n' })
    makeUnreachableFile(root, 'deep', 'needle\n')
    const ctx = await makeContext(root)
    const result = (await searchInFilesTool.run({ query: 'needle' }, ctx)) as SearchResult
    expect(result.ok).toBe(true)
    expect(result.matches).toEqual([{ path: 'ok.txt', line: 1, text: 'needle' }])
    expect(result.unreadable).toHaveLength(1)
    const [gone] = result.unreadable!
    // The path is cut in the middle: its start and end, and its length, not 4,800 characters.
    expect(gone.path).toMatch(/^deep\/x{115}…\[\d+ characters\]…x{120}$/)
    expect(gone.reason).toMatch(/name too long \(os error 36\)$/i)
    expect(result.note).toContain('1 path(s) could not be read, so their matches are missing: "deep/')
  })

  it('says no match was found in what could be read, rather than failing with no reason', async () => {
    // The only match is in the unreachable file: before, this was "The search failed: " and nothing.
    const root = makeProject({ 'other.txt': 'hay\n' })
    makeUnreachableFile(root, 'deep', 'needle\n')
    const ctx = await makeContext(root)
    const result = (await searchInFilesTool.run({ query: 'needle' }, ctx)) as SearchResult
    expect(result).toMatchObject({ ok: true, matches: [], count: 0 })
    expect(result.note).toMatch(/^No matches in the files that could be read\. 1 path\(s\) could not be read/)
    expect(result.note).toMatch(/name too long \(os error 36\)\. Fix the permissions or shorten the path/i)
  })

  it('fails with the reason when no file at all could be read', async () => {
    const root = makeProject({})
    makeUnreachableFile(root, 'deep', 'needle\n')
    const ctx = await makeContext(root)
    const result = (await searchInFilesTool.run({ query: 'needle' }, ctx)) as SearchResult
    expect(result.ok).toBe(false)
    expect(result.error).toMatch(
      /^The search could read no file: 1 path\(s\) could not be read.*name too long/i,
    )
  })

  // Root reads a mode-000 file, so this case only means something for an unprivileged user
  // (CI runs the suites as one too); the PATH_MAX cases above hold for root as well.
  it.skipIf(process.getuid?.() === 0)('names a file without read permission', async () => {
    const root = makeProject({ 'ok.txt': 'needle\n', 'locked.txt': 'needle\n' })
    fs.chmodSync(path.join(root, 'locked.txt'), 0o000)
    const ctx = await makeContext(root)
    const result = (await searchInFilesTool.run({ query: 'needle' }, ctx)) as SearchResult
    expect(result.matches).toEqual([{ path: 'ok.txt', line: 1, text: 'needle' }])
    expect(result.unreadable).toEqual([{ path: 'locked.txt', reason: 'Permission denied (os error 13)' }])
  })
})

describe('list_files over paths it cannot reach', () => {
  it('lists what it can and says which path it skipped and why', async () => {
    const root = makeProject({ 'ok.txt': 'hi\n' })
    makeUnreachableFile(root, 'deep', 'hi\n')
    const ctx = await makeContext(root)
    const result = (await listFilesTool.run({}, ctx)) as unknown as SearchResult & {
      files: string[]
      skipped?: SearchResult['unreadable']
    }
    expect(result.ok).toBe(true)
    expect(result.files).toContain('ok.txt')
    expect(result.skipped).toHaveLength(1)
    expect(result.skipped![0].path).toMatch(/^deep\/x{115}…\[\d+ characters\]…/)
    expect(result.skipped![0].reason).toMatch(/name too long \(os error 36\)$/i)
    expect(result.note).toMatch(/^1 path\(s\) skipped, they could not be listed: "deep\//)
  })

  it('says nothing of skipped paths when everything was reached', async () => {
    const ctx = await makeContext(makeProject({ 'ok.txt': 'hi\n' }))
    const result = (await listFilesTool.run({}, ctx)) as unknown as {
      files: string[]
      skipped?: unknown
      note?: string
    }
    expect(result.files).toEqual(['ok.txt'])
    expect(result.skipped).toBeUndefined()
    expect(result.note).toBeUndefined()
  })
})
