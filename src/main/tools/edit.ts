import { z } from 'zod'
import type { ResolvedPath } from '../containment/types'
import { sameContent } from '../containment/fingerprint'
import { fail, loadTextFile, resolvePath, statKind, type LoadedText, type ToolError } from './files'
import { int, pathArg } from './schema'
import { byteLength, formatBytes, splitLines } from './text'
import type { FileChange, FileChangeTool, Outcome, ToolContext } from './types'

/*
 * The edit family proposes changes and writes nothing: the agent loop asks for
 * approval, then `applyFileChange` (apply.ts) writes. Each proposal carries the
 * fingerprint of the file it was computed from, so a change on disk meanwhile is caught.
 */

const writeFileInput = z.object({
  path: pathArg(
    'Path of the file to write, relative to the project root. Missing parent directories are created.',
  ),
  content: z.string().describe('The complete new content of the file (not a diff, no line-number prefixes).'),
})

export const writeFileTool: FileChangeTool<typeof writeFileInput> = {
  name: 'write_file',
  aliases: ['create_file'],
  family: 'edit',
  mutating: true,
  description:
    'Create a file, or replace the whole content of one. Overwriting an existing file requires that you read_file it earlier in this session and that it has not changed since. ' +
    'For a small change to an existing file prefer edit_file or edit_lines.',
  input: writeFileInput,
  async propose(input, ctx) {
    const file = resolvePath(ctx, input.path)
    if (!file.ok) return file
    const tooBig = checkWriteSize(input.content, ctx)
    if (tooBig) return tooBig
    const { kind } = await statKind(file.abs)
    if (kind === 'directory') return fail(`"${file.rel}" is a directory; give a file path.`)
    if (kind === 'missing')
      return { path: file.rel, kind: 'create', before: null, after: input.content, fingerprint: null }
    const loaded = await loadReadFile(file, ctx, 'overwriting it with write_file')
    if (!loaded.ok) return loaded
    if (loaded.text === input.content)
      return fail(`write_file would not change "${file.rel}": the content is identical.`)
    return modify(file, loaded, input.content)
  },
}

const editFileInput = z.object({
  path: pathArg('Path of the file to edit, relative to the project root.'),
  old_string: z
    .string()
    .describe(
      'Exact text to replace, copied from the file (without read_file\'s "N\\t" line-number prefixes). It must occur exactly once: include enough surrounding lines to make it unique.',
    ),
  new_string: z.string().describe('The text that replaces old_string.'),
})

export const editFileTool: FileChangeTool<typeof editFileInput> = {
  name: 'edit_file',
  family: 'edit',
  mutating: true,
  description:
    'Replace one exact occurrence of old_string with new_string in an existing file. Fails, changing nothing, when old_string occurs zero times or more than once.',
  input: editFileInput,
  async propose(input, ctx) {
    const file = resolvePath(ctx, input.path)
    if (!file.ok) return file
    if (input.old_string === '') {
      return fail(
        'old_string is empty. To create a file use write_file; to insert text, include the neighbouring line(s) in old_string and new_string.',
      )
    }
    if (input.old_string === input.new_string)
      return fail('old_string and new_string are identical; nothing would change.')
    const loaded = await loadTextFile(file, ctx.sandbox.gate)
    if (!loaded.ok) return loaded
    if (loaded.invalidUtf8) return fail(invalidUtf8Refusal(file.rel))

    const found = locate(loaded.text, input.old_string, input.new_string)
    if (found.count === 0) {
      return fail(
        `old_string was not found in "${file.rel}" (0 occurrences). The file may differ from what you remember: read_file it again and copy the exact text, including whitespace.`,
      )
    }
    if (found.count > 1) {
      return fail(
        `old_string occurs ${found.count} times in "${file.rel}"; it must occur exactly once. Add surrounding lines to old_string so it matches only the place you mean.`,
      )
    }
    const after =
      loaded.text.slice(0, found.index) +
      found.replacement +
      loaded.text.slice(found.index + found.needle.length)
    const tooBig = checkWriteSize(after, ctx)
    if (tooBig) return tooBig
    return modify(file, loaded, after)
  },
}

/**
 * Where old_string occurs, forgiving two common slips when it is not found as
 * given: LF line breaks against a CRLF file, and read_file's "N\t" prefixes
 * copied along with the text.
 */
function locate(
  text: string,
  oldString: string,
  newString: string,
): { count: number; index: number; needle: string; replacement: string } {
  const candidates: [string, string][] = [[oldString, newString]]
  const stripped = stripLineNumbers(oldString)
  if (stripped !== undefined) candidates.push([stripped, stripLineNumbers(newString) ?? newString])
  if (text.includes('\r\n')) {
    for (const [o, n] of [...candidates]) {
      if (o.includes('\n') && !o.includes('\r\n'))
        candidates.push([o.replace(/\n/g, '\r\n'), n.replace(/\r?\n/g, '\r\n')])
    }
  }
  for (const [needle, replacement] of candidates) {
    const count = countOccurrences(text, needle)
    if (count > 0) return { count, index: text.indexOf(needle), needle, replacement }
  }
  return { count: 0, index: -1, needle: oldString, replacement: newString }
}

function stripLineNumbers(s: string): string | undefined {
  const lines = s.split('\n')
  if (!lines.every((l, i) => /^\s*\d+\t/.test(l) || (i === lines.length - 1 && l === ''))) return undefined
  return lines.map((l) => l.replace(/^\s*\d+\t/, '')).join('\n')
}

function countOccurrences(text: string, needle: string): number {
  let count = 0
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) count++
  return count
}

const editLinesInput = z.object({
  path: pathArg('Path of the file to edit, relative to the project root.'),
  start_line: int('First line to replace (1-based, as numbered by read_file).'),
  end_line: int(
    'Last line to replace (inclusive). Use start_line - 1 to insert before start_line without replacing anything.',
    0,
  ),
  content: z
    .string()
    .describe(
      'The new lines that replace start_line..end_line (no line-number prefixes). An empty string deletes the lines.',
    ),
})

export const editLinesTool: FileChangeTool<typeof editLinesInput> = {
  name: 'edit_lines',
  family: 'edit',
  mutating: true,
  description:
    'Replace lines start_line..end_line (inclusive, numbered as read_file shows them) with content. ' +
    'Requires a read_file of the file in this session with no change on disk since, so the numbers are current; after an edit, line numbers below it shift — read again if unsure. ' +
    'To insert, set end_line = start_line - 1; to append, start_line = last line + 1.',
  input: editLinesInput,
  async propose(input, ctx) {
    const file = resolvePath(ctx, input.path)
    if (!file.ok) return file
    const loaded = await loadReadFile(file, ctx, 'editing it by line numbers')
    if (!loaded.ok) return loaded
    if (loaded.invalidUtf8) return fail(invalidUtf8Refusal(file.rel))

    const total = splitLines(loaded.text).length
    const { start_line: start, end_line: end } = input
    if (start > total + 1)
      return fail(
        `start_line ${start} is past the end of "${file.rel}", which has ${total} lines (use ${total + 1} to append).`,
      )
    if (end < start - 1)
      return fail(
        `end_line ${end} is before start_line ${start}. Use end_line = start_line - 1 to insert without replacing.`,
      )
    if (end > total)
      return fail(`end_line ${end} is past the end of "${file.rel}", which has ${total} lines.`)

    const after = replaceLines(loaded.text, start, end, input.content)
    if (after === loaded.text) return fail('This edit would not change the file.')
    const tooBig = checkWriteSize(after, ctx)
    if (tooBig) return tooBig
    return modify(file, loaded, after)
  },
}

/** Replaces 1-based lines start..end (end = start-1 inserts), keeping the file's line endings. */
export function replaceLines(text: string, start: number, end: number, content: string): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n'
  const parts = text === '' ? [] : text.split('\n')
  const finalNewline = text === '' || text.endsWith('\n')
  if (text.endsWith('\n')) parts.pop()
  const newLines =
    content === ''
      ? []
      : content
          .replace(/\r?\n$/, '')
          .split(/\r?\n/)
          .map((l) => (eol === '\r\n' ? l + '\r' : l))
  const result = [...parts.slice(0, start - 1), ...newLines, ...parts.slice(end)]
  if (result.length === 0) return ''
  // A file that ended without a newline keeps ending without one.
  return result.join('\n') + (finalNewline ? '\n' : '')
}

const deleteFileInput = z.object({
  path: pathArg('Path of the file to delete, relative to the project root.'),
})

export const deleteFileTool: FileChangeTool<typeof deleteFileInput> = {
  name: 'delete_file',
  family: 'edit',
  mutating: true,
  description: 'Delete a text file. Directories are not deleted (they disappear from listings once empty).',
  input: deleteFileInput,
  async propose(input, ctx) {
    const file = resolvePath(ctx, input.path)
    if (!file.ok) return file
    // Nothing to delete is an answer, not an error (the original contract): no change is proposed.
    if ((await statKind(file.abs)).kind === 'missing')
      return { ok: true, path: file.rel, deleted: false, reason: 'not_found' }
    const loaded = await loadTextFile(file, ctx.sandbox.gate)
    if (!loaded.ok) {
      return loaded.error.includes('binary')
        ? fail(
            `"${file.rel}" is a binary file; delete_file only deletes text files. Ask the user to delete it.`,
          )
        : loaded
    }
    return {
      path: file.rel,
      kind: 'delete',
      before: loaded.text,
      after: null,
      fingerprint: loaded.fingerprint,
    }
  },
}

/** An existing file the model has read in this session, unchanged on disk since. */
async function loadReadFile(
  file: ResolvedPath,
  ctx: ToolContext,
  purpose: string,
): Promise<Outcome<LoadedText>> {
  const lastRead = ctx.reads.lastRead(file.rel)
  const loaded = await loadTextFile(file, ctx.sandbox.gate)
  if (!loaded.ok) return loaded
  if (!lastRead)
    return fail(
      `"${file.rel}" already exists and you have not read it in this session. Call read_file on it before ${purpose}.`,
    )
  if (!sameContent(lastRead, loaded.fingerprint)) {
    return fail(
      `"${file.rel}" changed on disk since you read it; read it again with read_file before ${purpose}.`,
    )
  }
  return loaded
}

function modify(file: ResolvedPath, loaded: LoadedText, after: string): FileChange {
  return { path: file.rel, kind: 'modify', before: loaded.text, after, fingerprint: loaded.fingerprint }
}

function checkWriteSize(content: string, ctx: ToolContext): ToolError | undefined {
  const size = byteLength(content)
  if (size <= ctx.limits.maxWriteBytes) return undefined
  return fail(
    `The result would be ${formatBytes(size)}, over the ${formatBytes(ctx.limits.maxWriteBytes)} write limit. Split the content into smaller files.`,
  )
}

function invalidUtf8Refusal(rel: string): string {
  return `"${rel}" is not valid UTF-8; editing it would destroy the bytes that cannot be decoded. Leave it unchanged, or replace it entirely with write_file if that is really intended.`
}

export const editTools = [writeFileTool, editFileTool, editLinesTool, deleteFileTool] as const
