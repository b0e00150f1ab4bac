import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { fileInfoTool, listFilesTool, readFileTool, searchInFilesTool } from './read'
import { makeContext, makeProject } from './test-support'

const SECRETS = {
  '.env': 'API_KEY=needle',
  '.env.local': 'needle',
  '.git/config': 'needle',
  'node_modules/x/index.js': 'needle',
  'dist/out.js': 'needle',
  'keys/server.pem': 'needle',
  'keys/server.key': 'needle',
  'keys/id_rsa': 'needle',
  '.npmrc': 'needle',
}

describe('list_files', () => {
  it('lists sorted project files, skipping denied and ignored ones', async () => {
    const root = makeProject({
      ...SECRETS,
      '.gitignore': 'tmp/\n',
      'tmp/cache.txt': 'x',
      'src/b.ts': '',
      'src/a.ts': '',
      'README.md': '',
    })
    const ctx = await makeContext(root)
    expect(await listFilesTool.run({}, ctx)).toEqual({
      ok: true,
      files: ['.gitignore', 'README.md', 'src/a.ts', 'src/b.ts'],
      count: 4,
      total: 4,
    })
  })

  it('takes a prefix and a glob, and explains an empty or odd prefix', async () => {
    const root = makeProject({
      '.gitignore': 'tmp/\n',
      'tmp/cache.txt': '',
      'src/a.ts': '',
      'src/b.css': '',
      'lib/c.ts': '',
    })
    const ctx = await makeContext(root)
    expect(await listFilesTool.run({ prefix: 'src/' }, ctx)).toEqual({
      ok: true,
      files: ['src/a.ts', 'src/b.css'],
      count: 2,
      total: 2,
    })
    expect(await listFilesTool.run({ glob: '*.ts' }, ctx)).toEqual({
      ok: true,
      files: ['lib/c.ts', 'src/a.ts'],
      count: 2,
      total: 2,
    })
    expect(await listFilesTool.run({ prefix: 'src/a.ts' }, ctx)).toEqual({
      ok: true,
      files: ['src/a.ts'],
      count: 1,
      total: 1,
      note: '"src/a.ts" is a file, not a directory.',
    })
    expect(await listFilesTool.run({ prefix: 'nope' }, ctx)).toEqual({
      ok: false,
      error: '"nope" does not exist. Call list_files without a prefix to see the project\'s layout.',
    })
    expect(await listFilesTool.run({ prefix: 'tmp' }, ctx)).toEqual({
      ok: true,
      files: [],
      count: 0,
      total: 0,
      note: '"tmp" is ignored by .gitignore, so listings skip it; you can still read_file a file in it by its exact path.',
    })
    expect(await listFilesTool.run({ prefix: 'node_modules' }, ctx)).toMatchObject({
      ok: false,
      error: expect.stringContaining('is denied by the sandbox'),
    })
  })

  it('marks truncation exactly', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 30; i++) files[`f${i}.txt`] = ''
    const ctx = await makeContext(makeProject(files))
    const result = await listFilesTool.run({ limit: 10 }, ctx)
    // The first ten in sorted order, every time (ripgrep's own order is not stable).
    const firstTen = Object.keys(files).sort().slice(0, 10)
    expect(result).toEqual({
      ok: true,
      files: firstTen,
      count: 10,
      total: 30,
      truncated: '[TRUNCATED: first 10 items] Narrow it with prefix or glob, or raise limit (max 10000).',
    })
  })
})

describe('read_file', () => {
  it('returns numbered lines and records the read', async () => {
    const root = makeProject({ 'a.ts': 'one\ntwo\nthree\n' })
    const ctx = await makeContext(root)
    expect(await readFileTool.run({ path: 'a.ts' }, ctx)).toEqual({
      ok: true,
      path: 'a.ts',
      bytes: 14,
      total_lines: 3,
      start_line: 1,
      end_line: 3,
      content: '1\tone\n2\ttwo\n3\tthree',
    })
    const data = fs.readFileSync(path.join(root, 'a.ts'))
    expect(ctx.reads.lastRead('a.ts')).toMatchObject({
      size: data.length,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    })
  })

  it('reads a range, and refuses ranges past the end', async () => {
    const ctx = await makeContext(makeProject({ 'a.txt': 'a\nb\nc\nd' }))
    expect(await readFileTool.run({ path: 'a.txt', start_line: 2, end_line: 3 }, ctx)).toEqual({
      ok: true,
      path: 'a.txt',
      bytes: 7,
      total_lines: 4,
      start_line: 2,
      end_line: 3,
      content: '2\tb\n3\tc',
    })
    expect(await readFileTool.run({ path: 'a.txt', start_line: 3, end_line: 99 }, ctx)).toMatchObject({
      content: '3\tc\n4\td',
      end_line: 4,
    })
    expect(await readFileTool.run({ path: 'a.txt', start_line: 9 }, ctx)).toEqual({
      ok: false,
      error: 'start_line 9 is past the end of the file, which has 4 lines.',
    })
    expect(await readFileTool.run({ path: 'a.txt', start_line: 3, end_line: 2 }, ctx)).toEqual({
      ok: false,
      error: 'end_line 2 is before start_line 3; give a range with start_line ≤ end_line.',
    })
  })

  it('reads an empty file as "empty file: 0 lines"', async () => {
    const ctx = await makeContext(makeProject({ 'empty.txt': '' }))
    expect(await readFileTool.run({ path: 'empty.txt' }, ctx)).toEqual({
      ok: true,
      path: 'empty.txt',
      bytes: 0,
      total_lines: 0,
      content: 'empty file: 0 lines',
    })
  })

  it('truncates long files with the exact marker and where to continue', async () => {
    const lines = Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`)
    const ctx = await makeContext(makeProject({ 'long.txt': lines.join('\n') + '\n' }))
    const result = await readFileTool.run({ path: 'long.txt' }, ctx)
    expect(result).toMatchObject({
      ok: true,
      total_lines: 2500,
      start_line: 1,
      end_line: 2000,
      truncated:
        '[TRUNCATED: showing first 2000 lines, 500 more available] Call read_file again with start_line=2001 to continue.',
    })
    expect((result as unknown as { content: string }).content.split('\n').at(-1)).toBe('2000\tline 2000')
    expect(await readFileTool.run({ path: 'long.txt', start_line: 2001 }, ctx)).toMatchObject({
      start_line: 2001,
      end_line: 2500,
    })
  })

  it('cuts at the byte limit too', async () => {
    const line = 'x'.repeat(99)
    const ctx = await makeContext(makeProject({ 'big.txt': `${line}\n`.repeat(100) }))
    ctx.limits.maxReadBytes = 1000
    const result = await readFileTool.run({ path: 'big.txt' }, ctx)
    // Each shown line costs "N\t" + 99 chars + newline.
    expect(result).toMatchObject({
      end_line: 9,
      truncated:
        '[TRUNCATED: showing first 9 lines, 91 more available] Call read_file again with start_line=10 to continue.',
    })
  })

  it('refuses binary files, naming the size and file_info', async () => {
    const ctx = await makeContext(
      makeProject({ 'img.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]) }),
    )
    expect(await readFileTool.run({ path: 'img.png' }, ctx)).toEqual({
      ok: false,
      error:
        '"img.png" is a binary file (8 bytes); only text files can be shown or edited. Use file_info for its details.',
    })
  })

  it('reads non-UTF-8 text with replacement characters and says so', async () => {
    const ctx = await makeContext(makeProject({ 'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) }))
    expect(await readFileTool.run({ path: 'latin1.txt' }, ctx)).toEqual({
      ok: true,
      path: 'latin1.txt',
      bytes: 5,
      total_lines: 1,
      start_line: 1,
      end_line: 1,
      content: '1\tcaf\uFFFD',
      encoding: 'invalid-utf8',
      note: 'This file is not valid UTF-8: undecodable bytes are shown as \uFFFD. edit_file and edit_lines refuse it, because writing it back would destroy those bytes.',
    })
  })

  it('shows CRLF files without the \\r and says they are CRLF', async () => {
    const ctx = await makeContext(makeProject({ 'win.txt': 'a\r\nb\r\n' }))
    expect(await readFileTool.run({ path: 'win.txt' }, ctx)).toMatchObject({
      content: '1\ta\n2\tb',
      line_endings: 'crlf',
    })
  })

  it('refuses denied files, outside paths and directories, and reads ignored files by explicit path', async () => {
    const root = makeProject({
      ...SECRETS,
      '.gitignore': 'gen/\n',
      'gen/out.ts': 'generated\n',
      'src/x.ts': '',
    })
    const ctx = await makeContext(root)
    for (const p of Object.keys(SECRETS)) {
      const r = await readFileTool.run({ path: p }, ctx)
      expect(r.ok, p).toBe(false)
    }
    expect(await readFileTool.run({ path: '../etc/passwd' }, ctx)).toMatchObject({
      ok: false,
      error: expect.stringContaining('outside the project root'),
    })
    expect(await readFileTool.run({ path: 'src' }, ctx)).toEqual({
      ok: false,
      error: '"src" is a directory, not a file. Use list_files with prefix "src" to see its files.',
    })
    expect(await readFileTool.run({ path: 'missing.ts' }, ctx)).toEqual({
      ok: false,
      error: '"missing.ts" does not exist. Use list_files to see which files exist.',
    })
    expect(await readFileTool.run({ path: 'gen/out.ts' }, ctx)).toMatchObject({
      ok: true,
      content: '1\tgenerated',
    })
  })
})

describe('file_info', () => {
  it('describes files and directories', async () => {
    const root = makeProject({
      'src/a.ts': 'x\ny\n',
      'img.bin': Buffer.from([0, 1, 2]),
      '.gitignore': '*.bin\n',
    })
    const ctx = await makeContext(root)
    const mtime = new Date(fs.statSync(path.join(root, 'src/a.ts')).mtimeMs).toISOString()
    expect(await fileInfoTool.run({ path: 'src/a.ts' }, ctx)).toEqual({
      ok: true,
      path: 'src/a.ts',
      type: 'file',
      modified: mtime,
      mode: (fs.statSync(path.join(root, 'src/a.ts')).mode & 0o777).toString(8),
      ignored: false,
      size: 4,
      size_text: '4 bytes',
      binary: false,
      lines: 2,
      encoding: 'utf-8',
      read_in_session: false,
    })
    expect(await fileInfoTool.run({ path: 'img.bin' }, ctx)).toMatchObject({
      binary: true,
      ignored: true,
      size: 3,
    })
    expect(await fileInfoTool.run({ path: 'src' }, ctx)).toMatchObject({
      ok: true,
      type: 'directory',
      entries: 1,
    })
    expect(await fileInfoTool.run({ path: '.env' }, ctx)).toMatchObject({ ok: false })
  })
})

describe('search_in_files', () => {
  it('finds literal text, sorted, never in denied or ignored files', async () => {
    const root = makeProject({
      ...SECRETS,
      '.gitignore': 'gen/\n',
      'gen/x.ts': 'needle',
      'src/b.ts': 'const a = 1\n  return needle(a)\n',
      'src/a.ts': 'needle.*\n',
      'img.bin': Buffer.from('needle\0\0'),
    })
    const ctx = await makeContext(root)
    expect(await searchInFilesTool.run({ query: 'needle' }, ctx)).toEqual({
      ok: true,
      query: 'needle',
      matches: [
        { path: 'src/a.ts', line: 1, text: 'needle.*' },
        { path: 'src/b.ts', line: 2, text: 'return needle(a)' },
      ],
      count: 2,
      matched_files: 2,
      // ripgrep's own count: the two sources, the ignore file and the binary it skipped.
      scanned_files: 4,
    })
    // Literal by default: ".*" is not a regex here.
    expect(await searchInFilesTool.run({ query: 'needle.*' }, ctx)).toMatchObject({
      count: 1,
      matches: [{ path: 'src/a.ts' }],
    })
    expect(await searchInFilesTool.run({ query: 'needle\\(\\w\\)', regex: true }, ctx)).toMatchObject({
      count: 1,
      matches: [{ path: 'src/b.ts' }],
    })
  })

  it('honours case, prefix and glob', async () => {
    const root = makeProject({
      'src/a.ts': 'Foo\nfoo\n',
      'lib/b.js': 'foo\n',
      '.gitignore': 'lib/ignored.js\n',
      'lib/ignored.js': 'foo\n',
    })
    const ctx = await makeContext(root)
    // Case-sensitive by default, as the original contract: "foo" is not "Foo".
    expect(await searchInFilesTool.run({ query: 'foo' }, ctx)).toMatchObject({ count: 2 })
    expect(await searchInFilesTool.run({ query: 'Foo' }, ctx)).toMatchObject({ count: 1 })
    expect(await searchInFilesTool.run({ query: 'FOO', case_sensitive: false }, ctx)).toMatchObject({
      count: 3,
    })
    expect(await searchInFilesTool.run({ query: 'foo', case_sensitive: true }, ctx)).toMatchObject({
      count: 2,
    })
    expect(await searchInFilesTool.run({ query: 'foo', prefix: 'lib' }, ctx)).toEqual({
      ok: true,
      query: 'foo',
      matches: [{ path: 'lib/b.js', line: 1, text: 'foo' }],
      count: 1,
      matched_files: 1,
      scanned_files: 1,
    })
    expect(
      await searchInFilesTool.run({ query: 'foo', glob: '*.ts', case_sensitive: false }, ctx),
    ).toMatchObject({
      count: 2,
      matches: [{ path: 'src/a.ts' }, { path: 'src/a.ts' }],
    })
    expect(await searchInFilesTool.run({ query: 'absent' }, ctx)).toEqual({
      ok: true,
      query: 'absent',
      matches: [],
      count: 0,
      matched_files: 0,
      scanned_files: 3,
      note: 'No matches.',
    })
  })

  it('stops at limit_files, naming the limit', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 5; i++) files[`f${i}.txt`] = 'hit\nhit\n'
    const ctx = await makeContext(makeProject(files))
    const result = await searchInFilesTool.run({ query: 'hit', limit_files: 2 }, ctx)
    expect(result).toMatchObject({ ok: true, query: 'hit', count: 4, matched_files: 2 })
    expect((result as unknown as { truncated: string }).truncated).toMatch(
      /^\[TRUNCATED: reached limit 2 before completing search\] \(limit_files/,
    )
    // Stopped early, ripgrep printed no counts: scanned_files is left out rather than guessed.
    expect(result).not.toHaveProperty('scanned_files')
    expect(await searchInFilesTool.run({ query: 'hit' }, ctx)).toMatchObject({
      count: 10,
      matched_files: 5,
      scanned_files: 5,
    })
  })

  it('marks a truncated search exactly and trims long lines around the match', async () => {
    const long = 'a'.repeat(500) + 'needle' + 'b'.repeat(500)
    const ctx = await makeContext(makeProject({ 'x.txt': 'needle\n'.repeat(20), 'min.js': long }))
    expect(await searchInFilesTool.run({ query: 'needle', limit_matches: 5 }, ctx)).toMatchObject({
      count: 5,
      truncated:
        '[TRUNCATED: reached limit 5 before completing search] Narrow the query, prefix or glob to see the rest.',
    })
    const min = await searchInFilesTool.run({ query: 'needle', glob: '*.js' }, ctx)
    const text = (min as unknown as { matches: { text: string }[] }).matches[0].text
    expect(text).toBe('…' + 'a'.repeat(60) + 'needle' + 'b'.repeat(134) + '…')
  })

  it('cuts a multi-kilobyte line around the match, at character boundaries', async () => {
    // Past 4 KB only a window of the line is decoded: the excerpt must be the one a
    // whole-line decode gives, multi-byte characters included.
    const line = 'é'.repeat(3000) + 'needle' + '€'.repeat(3000)
    const ctx = await makeContext(makeProject({ 'min.js': line + '\n' }))
    const result = await searchInFilesTool.run({ query: 'needle' }, ctx)
    expect(result).toMatchObject({
      matches: [{ path: 'min.js', line: 1, text: '…' + 'é'.repeat(60) + 'needle' + '€'.repeat(134) + '…' }],
    })
    const head = await searchInFilesTool.run({ query: 'éé' }, ctx)
    expect(head).toMatchObject({ matches: [{ text: 'é'.repeat(200) + '…' }] })
  })

  it('reads at most 1 MB of a matching line, and names a match past it', async () => {
    // A one-line file of 3 MB (a bundle): the match in the first MB is shown around it,
    // one past it is named with its column, never read into memory.
    const mb = 1024 * 1024
    const line = 'x'.repeat(100) + 'early' + 'y'.repeat(2 * mb) + 'late' + 'z'.repeat(mb)
    const ctx = await makeContext(makeProject({ 'bundle.js': line + '\n' }))
    const early = await searchInFilesTool.run({ query: 'early' }, ctx)
    expect(early).toMatchObject({
      matches: [{ line: 1, text: '…' + 'x'.repeat(60) + 'early' + 'y'.repeat(135) + '…' }],
    })
    const late = (await searchInFilesTool.run({ query: 'late' }, ctx)) as unknown as {
      matches: { text: string }[]
    }
    expect(late.matches[0].text).toMatch(
      new RegExp(
        `^\\[TRUNCATED: first ${mb} bytes of the line read; the match at column ${100 + 5 + 2 * mb + 1} is past them\\] x{100}early`,
      ),
    )
  })

  it('never shows a binary file, even one named as the prefix', async () => {
    const ctx = await makeContext(
      makeProject({ 'img.bin': Buffer.from('needle\0\0'), 'a:1:b.txt': 'a needle\r\n' }),
    )
    expect(await searchInFilesTool.run({ query: 'needle', prefix: 'img.bin' }, ctx)).toMatchObject({
      count: 0,
    })
    // Colons in a name do not confuse the parse; a CRLF line loses its \r.
    expect(await searchInFilesTool.run({ query: 'needle' }, ctx)).toEqual({
      ok: true,
      query: 'needle',
      matches: [{ path: 'a:1:b.txt', line: 1, text: 'a needle' }],
      count: 1,
      matched_files: 1,
      scanned_files: 2,
    })
  })

  it('reports an invalid regex as an error the model can fix', async () => {
    const ctx = await makeContext(makeProject({ 'a.txt': 'x' }))
    const result = await searchInFilesTool.run({ query: 'foo(', regex: true }, ctx)
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining('set regex to false') })
  })
})
