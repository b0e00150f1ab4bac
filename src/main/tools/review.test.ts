import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { sha256Hex } from '../containment/fingerprint'
import {
  diffFileAgainstOriginalTool,
  getBaselineInfoTool,
  listChangedFilesTool,
  readFileOriginalTool,
} from './review'
import { createIgnoredFolders } from '../snapshot/ignoredFolders'
import { makeContext, makeProject } from './test-support'
import type { BaselineReader } from '../snapshot/baseline-reader'

/** A baseline captured from the real files on disk, as the store's snapshot would hold them. */
function captureBaseline(root: string, files: string[]): BaselineReader {
  const blobs = new Map(files.map((f) => [f, fs.readFileSync(path.join(root, f))]))
  return {
    info: () => ({
      snapshotId: 7,
      createdAt: Date.UTC(2026, 0, 2, 3, 4, 5),
      fileCount: blobs.size,
      totalBytes: [...blobs.values()].reduce((n, b) => n + b.length, 0),
    }),
    files: () => new Map([...blobs].map(([p, b]) => [p, { hash: sha256Hex(b), size: b.length }])),
    readOriginal: (p) => blobs.get(p) ?? null,
  }
}

async function setup() {
  const root = makeProject({
    'src/same.ts': 'same\n',
    'src/modified.ts': 'one\ntwo\nthree\n',
    'src/same-size.ts': 'aaaa\n',
    'src/deleted.ts': 'bye\n',
    'lib/other.ts': 'x\n',
    'img.bin': Buffer.from([0, 1, 2]),
  })
  const baseline = captureBaseline(root, [
    'src/same.ts',
    'src/modified.ts',
    'src/same-size.ts',
    'src/deleted.ts',
    'lib/other.ts',
    'img.bin',
  ])
  fs.writeFileSync(path.join(root, 'src/modified.ts'), 'one\nTWO\nthree\nfour\n')
  fs.writeFileSync(path.join(root, 'src/same-size.ts'), 'bbbb\n')
  fs.rmSync(path.join(root, 'src/deleted.ts'))
  fs.writeFileSync(path.join(root, 'src/added.ts'), 'new\n')
  fs.writeFileSync(path.join(root, 'img.bin'), Buffer.from([0, 1, 2, 3]))
  fs.writeFileSync(path.join(root, '.env'), 'SECRET=1')
  return { root, ctx: await makeContext(root, { baseline }) }
}

describe('review tools', () => {
  it('get_baseline_info describes the snapshot', async () => {
    const { ctx } = await setup()
    expect(await getBaselineInfoTool.run({}, ctx)).toEqual({
      ok: true,
      snapshot_id: 7,
      created_at: '2026-01-02T03:04:05.000Z',
      file_count: 6,
      total_bytes: 33,
      maxReadBytes: 400 * 1024,
    })
  })

  it('list_changed_files reports added, modified (even at the same size) and deleted files by content', async () => {
    const { ctx } = await setup()
    expect(await listChangedFilesTool.run({}, ctx)).toEqual({
      ok: true,
      changes: [
        { path: 'img.bin', status: 'modified' },
        { path: 'src/added.ts', status: 'added' },
        { path: 'src/deleted.ts', status: 'deleted' },
        { path: 'src/modified.ts', status: 'modified' },
        { path: 'src/same-size.ts', status: 'modified' },
      ],
      count: 5,
      counts: { added: 1, modified: 3, deleted: 1 },
      added: ['src/added.ts'],
      deleted: ['src/deleted.ts'],
      modified: ['img.bin', 'src/modified.ts', 'src/same-size.ts'],
      baseline_files: 6,
      current_files: 6,
    })
    expect(await listChangedFilesTool.run({ prefix: 'lib' }, ctx)).toEqual({
      ok: true,
      changes: [],
      count: 0,
      counts: { added: 0, modified: 0, deleted: 0 },
      added: [],
      deleted: [],
      modified: [],
      baseline_files: 1,
      current_files: 1,
      note: 'Nothing has changed since the baseline.',
    })
    expect(await listChangedFilesTool.run({ prefix: 'src', limit: 2 }, ctx)).toEqual({
      ok: true,
      changes: [
        { path: 'src/added.ts', status: 'added' },
        { path: 'src/deleted.ts', status: 'deleted' },
      ],
      count: 4,
      // The counts are of every change; the path lists, like changes, stop at the limit.
      counts: { added: 1, modified: 2, deleted: 1 },
      added: ['src/added.ts'],
      deleted: ['src/deleted.ts'],
      modified: [],
      baseline_files: 4,
      current_files: 4,
      truncated: '[TRUNCATED: first 2 items] Narrow it with prefix, or raise limit.',
    })
  })

  it('read_file_original shows the baseline text, numbered', async () => {
    const { ctx } = await setup()
    expect(await readFileOriginalTool.run({ path: 'src/modified.ts' }, ctx)).toEqual({
      ok: true,
      path: 'src/modified.ts',
      existed: true,
      bytes: 14,
      total_lines: 3,
      start_line: 1,
      end_line: 3,
      content: '1\tone\n2\ttwo\n3\tthree',
    })
    expect(await readFileOriginalTool.run({ path: 'src/deleted.ts' }, ctx)).toMatchObject({
      ok: true,
      content: '1\tbye',
    })
    expect(await readFileOriginalTool.run({ path: 'src/added.ts' }, ctx)).toEqual({
      ok: true,
      path: 'src/added.ts',
      existed: false,
      note: '"src/added.ts" did not exist when the session started; it was added since (or never existed). Use read_file for its current content.',
    })
    expect(await readFileOriginalTool.run({ path: '.env' }, ctx)).toMatchObject({
      ok: false,
      error: expect.stringContaining('denied'),
    })
  })

  it('diff_file_against_original gives a unified diff, with truncation', async () => {
    const { ctx } = await setup()
    expect(await diffFileAgainstOriginalTool.run({ path: 'src/modified.ts' }, ctx)).toEqual({
      ok: true,
      path: 'src/modified.ts',
      status: 'modified',
      summary: 'src/modified.ts: modified, 2 line(s) added, 1 removed',
      added_lines: 2,
      removed_lines: 1,
      diff: '--- a/src/modified.ts\n+++ b/src/modified.ts\n@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n three\n+four',
    })
    expect(await diffFileAgainstOriginalTool.run({ path: 'src/added.ts' }, ctx)).toEqual({
      ok: true,
      path: 'src/added.ts',
      status: 'added',
      summary: 'src/added.ts: added, 1 line(s) added, 0 removed',
      added_lines: 1,
      removed_lines: 0,
      diff: '--- /dev/null\n+++ b/src/added.ts\n@@ -0,0 +1 @@\n+new',
    })
    expect(await diffFileAgainstOriginalTool.run({ path: 'src/deleted.ts' }, ctx)).toMatchObject({
      status: 'deleted',
      diff: '--- a/src/deleted.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye',
    })
    expect(await diffFileAgainstOriginalTool.run({ path: 'src/same.ts' }, ctx)).toEqual({
      ok: true,
      path: 'src/same.ts',
      status: 'unchanged',
      summary: 'src/same.ts: unchanged',
      diff: '',
    })
    expect(await diffFileAgainstOriginalTool.run({ path: 'img.bin' }, ctx)).toEqual({
      ok: true,
      path: 'img.bin',
      status: 'modified',
      binary: true,
      summary: 'img.bin: modified (binary, 3 bytes → 4 bytes)',
      diff: 'binary file: 3 bytes → 4 bytes',
    })
    expect(await diffFileAgainstOriginalTool.run({ path: 'src/modified.ts', max_lines: 4 }, ctx)).toEqual({
      ok: true,
      path: 'src/modified.ts',
      status: 'modified',
      summary: 'src/modified.ts: modified, 2 line(s) added, 1 removed',
      added_lines: 2,
      removed_lines: 1,
      diff: '--- a/src/modified.ts\n+++ b/src/modified.ts\n@@ -1,3 +1,4 @@\n one',
      truncated: '[TRUNCATED: showing first 4 lines, 4 more available] Raise max_lines to see more.',
    })
  })

  it('every review tool says clearly when there is no baseline', async () => {
    const ctx = await makeContext(makeProject({ 'a.txt': 'a' }))
    const error =
      'No baseline snapshot is available in this session, so there is nothing to compare against. Use git_status and git_diff to see changes instead.'
    expect(await getBaselineInfoTool.run({}, ctx)).toEqual({ ok: false, error })
    expect(await listChangedFilesTool.run({}, ctx)).toEqual({ ok: false, error })
    expect(await readFileOriginalTool.run({ path: 'a.txt' }, ctx)).toEqual({ ok: false, error })
    expect(await diffFileAgainstOriginalTool.run({ path: 'a.txt' }, ctx)).toEqual({ ok: false, error })
  })

  // The case: code appended by a command to node_modules/left-pad/index.js showed nowhere in review.
  it('list_changed_files lists changes under ignored folders with size and sha256', async () => {
    const root = makeProject({
      'index.js': 'require("left-pad")\n',
      'node_modules/left-pad/index.js': 'module.exports = pad\n',
    })
    const ctx = await makeContext(root, { baseline: captureBaseline(root, ['index.js']) })
    const folders = createIgnoredFolders(ctx.sandbox)
    await folders.record()
    ctx.ignoredChanges = () => folders.changes()
    const pad = path.join(root, 'node_modules/left-pad/index.js')
    fs.appendFileSync(pad, 'require("child_process").exec("sh x")\n')
    const now = fs.readFileSync(pad)
    const result = await listChangedFilesTool.run({}, ctx)
    expect(result).toMatchObject({
      ok: true,
      changes: [
        {
          path: 'node_modules/left-pad/index.js',
          status: 'modified',
          ignored: true,
          size: now.length,
          sha256: sha256Hex(now),
        },
      ],
      count: 1,
      modified: ['node_modules/left-pad/index.js'],
    })
    expect(result).toHaveProperty('ignored_note')
    expect(await listChangedFilesTool.run({ prefix: 'src' }, ctx)).toMatchObject({ count: 0 })
  })
})
