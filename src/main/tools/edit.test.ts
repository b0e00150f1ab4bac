import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { applyFileChange } from './apply'
import { deleteFileTool, editFileTool, editLinesTool, replaceLines, writeFileTool } from './edit'
import { readFileTool } from './read'
import { makeContext, makeProject } from './test-support'
import type { FileChange, ToolContext, ToolResult } from './types'

function asChange(value: FileChange | ToolResult): FileChange {
  if ('ok' in value) throw new Error(`expected a change, got: ${JSON.stringify(value)}`)
  return value
}

async function read(ctx: ToolContext, p: string) {
  const r = await readFileTool.run({ path: p }, ctx)
  expect(r.ok).toBe(true)
}

describe('write_file', () => {
  it('proposes a create without writing, then applies it with parent directories', async () => {
    const root = makeProject({})
    const ctx = await makeContext(root)
    const change = asChange(await writeFileTool.propose({ path: 'src/new/file.ts', content: 'a\nb\n' }, ctx))
    expect(change).toEqual({
      path: 'src/new/file.ts',
      kind: 'create',
      before: null,
      after: 'a\nb\n',
      fingerprint: null,
    })
    expect(fs.existsSync(path.join(root, 'src/new/file.ts'))).toBe(false)
    expect(await applyFileChange(change, ctx)).toEqual({
      ok: true,
      path: 'src/new/file.ts',
      action: 'created',
      lines: 2,
      bytes: 4,
      diff: '+2 -0',
    })
    expect(fs.readFileSync(path.join(root, 'src/new/file.ts'), 'utf8')).toBe('a\nb\n')
    expect(fs.readdirSync(path.join(root, 'src/new'))).toEqual(['file.ts'])
    // The write counts as a read: overwriting it next needs no read_file.
    expect(ctx.reads.lastRead('src/new/file.ts')).toBeDefined()
    expect(asChange(await writeFileTool.propose({ path: 'src/new/file.ts', content: 'c\n' }, ctx)).kind).toBe(
      'modify',
    )
  })

  it('requires a read before overwriting', async () => {
    const root = makeProject({ 'a.txt': 'old\n' })
    const ctx = await makeContext(root)
    expect(await writeFileTool.propose({ path: 'a.txt', content: 'new\n' }, ctx)).toEqual({
      ok: false,
      error:
        '"a.txt" already exists and you have not read it in this session. Call read_file on it before overwriting it with write_file.',
    })
    await read(ctx, 'a.txt')
    const change = asChange(await writeFileTool.propose({ path: 'a.txt', content: 'new\n' }, ctx))
    expect(change).toMatchObject({
      path: 'a.txt',
      kind: 'modify',
      before: 'old\n',
      after: 'new\n',
      fingerprint: { size: 4 },
    })
    expect(await applyFileChange(change, ctx)).toEqual({
      ok: true,
      path: 'a.txt',
      action: 'modified',
      lines: 1,
      bytes: 4,
      diff: '+1 -1',
    })
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('new\n')
  })

  it('refuses when the file changed on disk since the read (at propose and at apply), leaving it untouched', async () => {
    const root = makeProject({ 'a.txt': 'old\n' })
    const ctx = await makeContext(root)
    await read(ctx, 'a.txt')
    fs.writeFileSync(path.join(root, 'a.txt'), 'changed by the user\n')
    expect(await writeFileTool.propose({ path: 'a.txt', content: 'new\n' }, ctx)).toEqual({
      ok: false,
      error:
        '"a.txt" changed on disk since you read it; read it again with read_file before overwriting it with write_file.',
    })
    await read(ctx, 'a.txt')
    const change = asChange(await writeFileTool.propose({ path: 'a.txt', content: 'new\n' }, ctx))
    fs.writeFileSync(path.join(root, 'a.txt'), 'changed again\n')
    expect(await applyFileChange(change, ctx)).toEqual({
      ok: false,
      error:
        '"a.txt" changed on disk since you read it; read it again with read_file and redo the change on its current content.',
      conflict: true,
    })
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('changed again\n')
    // Forced (the user chose "Apply anyway"), it writes over the change on disk.
    expect(await applyFileChange(change, ctx, undefined, { force: true })).toMatchObject({ ok: true })
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('new\n')
  })

  it('refuses a create when the file appeared meanwhile, and denied, oversized or identical writes', async () => {
    const root = makeProject({ 'same.txt': 'x' })
    const ctx = await makeContext(root)
    const change = asChange(await writeFileTool.propose({ path: 'b.txt', content: 'mine' }, ctx))
    fs.writeFileSync(path.join(root, 'b.txt'), 'theirs')
    expect(await applyFileChange(change, ctx)).toEqual({
      ok: false,
      error:
        '"b.txt" was created on disk after you proposed this change. Read it with read_file and try again.',
      conflict: true,
    })
    expect(fs.readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('theirs')
    expect(await writeFileTool.propose({ path: '.env', content: 'X=1' }, ctx)).toMatchObject({
      ok: false,
      error: expect.stringContaining('denied'),
    })
    expect(await writeFileTool.propose({ path: '/tmp/x', content: 'X=1' }, ctx)).toMatchObject({
      ok: false,
      error: expect.stringContaining('Absolute paths'),
    })
    ctx.limits.maxWriteBytes = 10
    expect(await writeFileTool.propose({ path: 'big.txt', content: 'x'.repeat(11) }, ctx)).toEqual({
      ok: false,
      error:
        'The result would be 11 bytes, over the 10 bytes write limit. Split the content into smaller files.',
    })
    ctx.limits.maxWriteBytes = 1000
    await read(ctx, 'same.txt')
    expect(await writeFileTool.propose({ path: 'same.txt', content: 'x' }, ctx)).toEqual({
      ok: false,
      error: 'write_file would not change "same.txt": the content is identical.',
    })
  })

  it('keeps the file mode and writes through a symlinked directory to the real file', async () => {
    const root = makeProject({ 'run.sh': 'echo 1\n', 'real/a.txt': 'a\n' })
    fs.chmodSync(path.join(root, 'run.sh'), 0o755)
    fs.symlinkSync(path.join(root, 'real'), path.join(root, 'alias'))
    const ctx = await makeContext(root)
    await read(ctx, 'run.sh')
    await applyFileChange(
      asChange(await writeFileTool.propose({ path: 'run.sh', content: 'echo 2\n' }, ctx)),
      ctx,
    )
    expect(fs.statSync(path.join(root, 'run.sh')).mode & 0o777).toBe(0o755)
    await read(ctx, 'alias/a.txt')
    const change = asChange(await writeFileTool.propose({ path: 'alias/a.txt', content: 'b\n' }, ctx))
    expect(change.path).toBe('real/a.txt')
    await applyFileChange(change, ctx)
    expect(fs.lstatSync(path.join(root, 'alias')).isSymbolicLink()).toBe(true)
    expect(fs.readFileSync(path.join(root, 'real/a.txt'), 'utf8')).toBe('b\n')
  })

  it('applies the user-edited version when given', async () => {
    const root = makeProject({})
    const ctx = await makeContext(root)
    const change = asChange(await writeFileTool.propose({ path: 'a.txt', content: 'model\n' }, ctx))
    expect(await applyFileChange(change, ctx, 'user\nline\n')).toMatchObject({
      ok: true,
      lines: 2,
      diff: '+2 -0',
    })
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('user\nline\n')
  })
})

describe('edit_file', () => {
  it('replaces exactly one occurrence, literally ($ patterns included)', async () => {
    const root = makeProject({ 'a.ts': 'const a = 1\nconst b = 2\n' })
    const ctx = await makeContext(root)
    const change = asChange(
      await editFileTool.propose(
        { path: 'a.ts', old_string: 'const b = 2', new_string: "const b = '$&$1'" },
        ctx,
      ),
    )
    expect(change).toMatchObject({
      kind: 'modify',
      before: 'const a = 1\nconst b = 2\n',
      after: "const a = 1\nconst b = '$&$1'\n",
    })
    expect(await applyFileChange(change, ctx)).toEqual({
      ok: true,
      path: 'a.ts',
      action: 'modified',
      lines: 2,
      bytes: 29,
      diff: '+1 -1',
    })
    // A follow-up edit works without a re-read.
    expect(
      asChange(await editFileTool.propose({ path: 'a.ts', old_string: 'const a', new_string: 'let a' }, ctx))
        .after,
    ).toBe("let a = 1\nconst b = '$&$1'\n")
  })

  it('names the count when the match is not unique', async () => {
    const ctx = await makeContext(makeProject({ 'a.ts': 'x = 1\nx = 1\n' }))
    expect(
      await editFileTool.propose({ path: 'a.ts', old_string: 'y = 1', new_string: 'y = 2' }, ctx),
    ).toEqual({
      ok: false,
      error:
        'old_string was not found in "a.ts" (0 occurrences). The file may differ from what you remember: read_file it again and copy the exact text, including whitespace.',
    })
    expect(
      await editFileTool.propose({ path: 'a.ts', old_string: 'x = 1', new_string: 'x = 2' }, ctx),
    ).toEqual({
      ok: false,
      error:
        'old_string occurs 2 times in "a.ts"; it must occur exactly once. Add surrounding lines to old_string so it matches only the place you mean.',
    })
    expect(await editFileTool.propose({ path: 'a.ts', old_string: '', new_string: 'x' }, ctx)).toMatchObject({
      ok: false,
      error: expect.stringContaining('old_string is empty'),
    })
    expect(await editFileTool.propose({ path: 'a.ts', old_string: 'x', new_string: 'x' }, ctx)).toMatchObject(
      { ok: false, error: expect.stringContaining('identical') },
    )
  })

  it('forgives LF against CRLF and copied line-number prefixes', async () => {
    const ctx = await makeContext(makeProject({ 'win.txt': 'a\r\nb\r\nc\r\n', 'n.txt': 'alpha\nbeta\n' }))
    expect(
      asChange(
        await editFileTool.propose({ path: 'win.txt', old_string: 'a\nb', new_string: 'a\nB\nb' }, ctx),
      ).after,
    ).toBe('a\r\nB\r\nb\r\nc\r\n')
    expect(
      asChange(
        await editFileTool.propose(
          { path: 'n.txt', old_string: '1\talpha\n2\tbeta', new_string: '1\tALPHA\n2\tbeta' },
          ctx,
        ),
      ).after,
    ).toBe('ALPHA\nbeta\n')
  })

  it('refuses binary and non-UTF-8 files', async () => {
    const ctx = await makeContext(
      makeProject({ 'bin.dat': Buffer.from([1, 0, 2]), 'latin1.txt': Buffer.from([0x63, 0xe9, 0x0a]) }),
    )
    expect(
      await editFileTool.propose({ path: 'bin.dat', old_string: 'a', new_string: 'b' }, ctx),
    ).toMatchObject({ ok: false, error: expect.stringContaining('binary file (3 bytes)') })
    expect(await editFileTool.propose({ path: 'latin1.txt', old_string: 'c', new_string: 'd' }, ctx)).toEqual(
      {
        ok: false,
        error:
          '"latin1.txt" is not valid UTF-8; editing it would destroy the bytes that cannot be decoded. Leave it unchanged, or replace it entirely with write_file if that is really intended.',
      },
    )
  })
})

describe('edit_lines', () => {
  it('replaces, inserts, appends and deletes lines after a read', async () => {
    const root = makeProject({ 'a.txt': '1\n2\n3\n' })
    const ctx = await makeContext(root)
    expect(
      await editLinesTool.propose({ path: 'a.txt', start_line: 2, end_line: 2, content: 'two' }, ctx),
    ).toMatchObject({
      ok: false,
      error: expect.stringContaining('you have not read it in this session'),
    })
    await read(ctx, 'a.txt')
    const after = async (start: number, end: number, content: string) =>
      asChange(await editLinesTool.propose({ path: 'a.txt', start_line: start, end_line: end, content }, ctx))
        .after
    expect(await after(2, 2, 'two')).toBe('1\ntwo\n3\n')
    expect(await after(2, 3, 'x\ny\nz\n')).toBe('1\nx\ny\nz\n')
    expect(await after(2, 1, 'inserted')).toBe('1\ninserted\n2\n3\n')
    expect(await after(4, 3, 'appended')).toBe('1\n2\n3\nappended\n')
    expect(await after(1, 2, '')).toBe('3\n')
    expect(
      await editLinesTool.propose({ path: 'a.txt', start_line: 6, end_line: 6, content: 'x' }, ctx),
    ).toEqual({
      ok: false,
      error: 'start_line 6 is past the end of "a.txt", which has 3 lines (use 4 to append).',
    })
    expect(
      await editLinesTool.propose({ path: 'a.txt', start_line: 2, end_line: 9, content: 'x' }, ctx),
    ).toEqual({
      ok: false,
      error: 'end_line 9 is past the end of "a.txt", which has 3 lines.',
    })
    const change = asChange(
      await editLinesTool.propose({ path: 'a.txt', start_line: 3, end_line: 3, content: 'three' }, ctx),
    )
    await applyFileChange(change, ctx)
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('1\n2\nthree\n')
  })

  it('refuses stale line numbers after a change on disk', async () => {
    const root = makeProject({ 'a.txt': '1\n2\n' })
    const ctx = await makeContext(root)
    await read(ctx, 'a.txt')
    fs.writeFileSync(path.join(root, 'a.txt'), '0\n1\n2\n')
    expect(
      await editLinesTool.propose({ path: 'a.txt', start_line: 1, end_line: 1, content: 'x' }, ctx),
    ).toEqual({
      ok: false,
      error:
        '"a.txt" changed on disk since you read it; read it again with read_file before editing it by line numbers.',
    })
  })

  it('keeps CRLF endings and a missing final newline', () => {
    expect(replaceLines('a\r\nb\r\n', 2, 2, 'B\nC')).toBe('a\r\nB\r\nC\r\n')
    expect(replaceLines('a\nb', 2, 2, 'B')).toBe('a\nB')
    expect(replaceLines('a\nb', 3, 2, 'c')).toBe('a\nb\nc')
    expect(replaceLines('', 1, 0, 'first')).toBe('first\n')
  })
})

describe('delete_file', () => {
  it('proposes a delete with the old text, and applies it', async () => {
    const root = makeProject({ 'old.ts': 'gone\n', 'bin.dat': Buffer.from([0, 1]) })
    const ctx = await makeContext(root)
    const change = asChange(await deleteFileTool.propose({ path: 'old.ts' }, ctx))
    expect(change).toMatchObject({
      path: 'old.ts',
      kind: 'delete',
      before: 'gone\n',
      after: null,
      fingerprint: { size: 5 },
    })
    expect(fs.existsSync(path.join(root, 'old.ts'))).toBe(true)
    expect(await applyFileChange(change, ctx)).toEqual({
      ok: true,
      path: 'old.ts',
      action: 'deleted',
      deleted: true,
      lines: 0,
      bytes: 0,
      diff: '+0 -1',
    })
    expect(fs.existsSync(path.join(root, 'old.ts'))).toBe(false)
    // A file already gone is an answer, not an error, and proposes nothing to approve.
    expect(await deleteFileTool.propose({ path: 'old.ts' }, ctx)).toEqual({
      ok: true,
      path: 'old.ts',
      deleted: false,
      reason: 'not_found',
    })
    expect(await deleteFileTool.propose({ path: 'bin.dat' }, ctx)).toEqual({
      ok: false,
      error: '"bin.dat" is a binary file; delete_file only deletes text files. Ask the user to delete it.',
    })
    expect(await deleteFileTool.propose({ path: '.git/config' }, ctx)).toMatchObject({ ok: false })
  })
})
