import fs from 'node:fs/promises'
import { z } from 'zod'
import { diffStat, unifiedDiff } from '../../shared/diff'
import { sha256Hex } from '../containment/fingerprint'
import { fail, MAX_LOAD_BYTES, readGated, resolveGated, resolvePath, statKind } from './files'
import { textMeta, viewLines } from './read'
import { optionalInt, optionalString, pathArg } from './schema'
import { formatBytes, truncatedItems, truncatedLines } from './text'
import { decodeText, isBinary } from '../../shared/text-bytes'
import type { BaselineReader } from '../snapshot/baseline-reader'
import type { ReadTool, ToolContext, ToolResult } from './types'
import { pushAll } from '../../shared/arrays'

/*
 * The review family compares the project with the baseline: the snapshot taken
 * when the session started. A file's baseline `hash` is the hex sha256 of its bytes.
 */

const CHANGED_DEFAULT = 500
const DIFF_LINES_DEFAULT = 500
/** Files hashed at once while looking for changes. */
const HASH_CONCURRENCY = 32
const IGNORED_NOTE =
  'Entries with "ignored": true are under folders the listing leaves out (node_modules/, build output): they were found by comparing file stats with the session start, so no original content is kept; size and sha256 (when at most 16 MB) are of the file now.'

const NO_BASELINE =
  'No baseline snapshot is available in this session, so there is nothing to compare against. Use git_status and git_diff to see changes instead.'

function baselineOf(ctx: ToolContext): BaselineReader | undefined {
  return ctx.baseline
}

const noInput = z.object({})

export const getBaselineInfoTool: ReadTool<typeof noInput> = {
  name: 'get_baseline_info',
  family: 'review',
  mutating: false,
  description:
    "When the session's baseline snapshot (the project as it was when the session started) was taken, and how many files and bytes it holds.",
  input: noInput,
  async run(_input, ctx) {
    const baseline = baselineOf(ctx)
    if (!baseline) return fail(NO_BASELINE)
    const info = baseline.info()
    return {
      ok: true,
      snapshot_id: info.snapshotId,
      created_at: new Date(info.createdAt).toISOString(),
      file_count: info.fileCount,
      total_bytes: info.totalBytes,
      // The most of a file read_file and read_file_original show at once.
      maxReadBytes: ctx.limits.maxReadBytes,
    }
  },
}

const listChangedInput = z.object({
  prefix: optionalString('Only report files under this directory (project-relative).'),
  limit: optionalInt(`Most files to return (default ${CHANGED_DEFAULT}).`),
})

type ChangeStatus = 'added' | 'modified' | 'deleted'

export const listChangedFilesTool: ReadTool<typeof listChangedInput> = {
  name: 'list_changed_files',
  family: 'review',
  mutating: false,
  description:
    'Files added, modified or deleted since the session started (compared with the baseline snapshot, by content), sorted by path. Changes under ignored folders such as node_modules/ are listed too, marked "ignored".',
  input: listChangedInput,
  async run(input, ctx) {
    const baseline = baselineOf(ctx)
    if (!baseline) return fail(NO_BASELINE)
    let prefix: string | undefined
    let prefixExists = true
    if (input.prefix !== undefined && input.prefix.trim() !== '' && input.prefix.trim() !== '.') {
      const dir = resolvePath(ctx, input.prefix)
      if (!dir.ok) return dir
      if (dir.rel !== '.') prefix = dir.rel
      prefixExists = (await statKind(dir.abs)).kind !== 'missing'
    }
    const under = (p: string) => prefix === undefined || p === prefix || p.startsWith(prefix + '/')
    const original = baseline.files()
    // A prefix that is gone (a deleted directory) can still hold deleted files.
    const current = prefixExists ? (await ctx.sandbox.listFiles({ prefix, signal: ctx.signal })).files : []
    const seen = new Set(current)
    // Baseline files missing from the listing may still exist (newly ignored); compare those too.
    const candidates = [...current, ...[...original.keys()].filter((p) => under(p) && !seen.has(p))]

    const statuses = await mapLimited(candidates, HASH_CONCURRENCY, (p) =>
      changeStatus(ctx, p, original.get(p)),
    )
    const changes: ChangeEntry[] = []
    candidates.forEach((p, i) => {
      const status = statuses[i]
      if (status) changes.push({ path: p, status })
    })
    const listed = new Set(changes.map((c) => c.path))
    const ignored = (await ignoredEntries(ctx, under)).filter((c) => !listed.has(c.path))
    pushAll(changes, ignored)
    changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))

    const limit = input.limit ?? CHANGED_DEFAULT
    const shown = changes.slice(0, limit)
    const counts = { added: 0, modified: 0, deleted: 0 }
    for (const c of changes) counts[c.status]++
    const pathsOf = (status: ChangeStatus) => shown.filter((c) => c.status === status).map((c) => c.path)
    const result: ToolResult = {
      ok: true,
      changes: shown,
      count: changes.length,
      counts,
      // The original contract: the paths by status, and how many files each side holds.
      added: pathsOf('added'),
      deleted: pathsOf('deleted'),
      modified: pathsOf('modified'),
      baseline_files: [...original.keys()].filter(under).length,
      current_files: current.length,
    }
    if (changes.length > limit)
      result.truncated = `${truncatedItems(limit)} Narrow it with prefix, or raise limit.`
    if (changes.length === 0) result.note = 'Nothing has changed since the baseline.'
    if (ignored.length > 0) result.ignored_note = IGNORED_NOTE
    return result
  },
}

interface ChangeEntry {
  path: string
  status: ChangeStatus
  ignored?: true
  size?: number
  sha256?: string
}

/** Changes under ignored folders, with each present file's size and (up to 16 MB) sha256. */
async function ignoredEntries(ctx: ToolContext, under: (p: string) => boolean): Promise<ChangeEntry[]> {
  if (!ctx.ignoredChanges) return []
  return (await ctx.ignoredChanges())
    .filter((c) => under(c.path))
    .map(({ path, status, size, sha256 }) => ({
      path,
      status,
      ignored: true as const,
      ...(size !== undefined ? { size } : {}),
      ...(sha256 ? { sha256 } : {}),
    }))
}

async function changeStatus(
  ctx: ToolContext,
  rel: string,
  original: { hash: string; size: number } | undefined,
): Promise<ChangeStatus | undefined> {
  const file = resolveGated(ctx.sandbox.gate, rel)
  if (!file.ok) return original ? 'deleted' : undefined
  try {
    const stat = await fs.stat(file.abs)
    if (!stat.isFile()) return original ? 'deleted' : undefined
    if (original && stat.size !== original.size) return 'modified'
  } catch {
    return original ? 'deleted' : undefined
  }
  const read = readGated(ctx.sandbox.gate, file, { maxBytes: MAX_LOAD_BYTES })
  if (!read.ok) return original ? 'deleted' : undefined
  const data = read.data
  if (!original) return 'added'
  return sha256Hex(data) === original.hash ? undefined : 'modified'
}

async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      results[i] = await fn(items[i])
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

const readOriginalInput = z.object({ path: pathArg('Path of the file, relative to the project root.') })

export const readFileOriginalTool: ReadTool<typeof readOriginalInput> = {
  name: 'read_file_original',
  family: 'review',
  mutating: false,
  description: 'Read a file as it was when the session started (the baseline), line-numbered like read_file.',
  input: readOriginalInput,
  async run(input, ctx) {
    const baseline = baselineOf(ctx)
    if (!baseline) return fail(NO_BASELINE)
    const file = resolvePath(ctx, input.path)
    if (!file.ok) return file
    const data = baseline.readOriginal(file.rel)
    if (data === null)
      return {
        ok: true,
        path: file.rel,
        existed: false,
        note: `"${file.rel}" did not exist when the session started; it was added since (or never existed). Use read_file for its current content.`,
      }
    if (isBinary(data))
      return fail(
        `"${file.rel}" was a binary file (${formatBytes(data.length)}) at the baseline; only text can be shown.`,
      )
    const { text, invalidUtf8 } = decodeText(data)
    const view = viewLines(
      text,
      {},
      ctx.limits.maxReadBytes,
      () => 'Use diff_file_against_original to see what changed in the rest.',
    )
    if (!view.ok) return view
    return {
      ok: true,
      path: file.rel,
      existed: true,
      bytes: data.length,
      ...view.fields,
      ...textMeta(text, invalidUtf8),
    }
  },
}

const diffInput = z.object({
  path: pathArg('Path of the file, relative to the project root.'),
  max_lines: optionalInt(`Most diff lines to return (default ${DIFF_LINES_DEFAULT}).`),
})

export const diffFileAgainstOriginalTool: ReadTool<typeof diffInput> = {
  name: 'diff_file_against_original',
  family: 'review',
  mutating: false,
  description:
    'Unified diff of a file between the baseline (session start) and now. Works for added and deleted files too.',
  input: diffInput,
  async run(input, ctx) {
    const baseline = baselineOf(ctx)
    if (!baseline) return fail(NO_BASELINE)
    const file = resolvePath(ctx, input.path)
    if (!file.ok) return file
    const original = baseline.readOriginal(file.rel)
    let current: Buffer | null = null
    if ((await statKind(file.abs)).kind === 'file') {
      const read = readGated(ctx.sandbox.gate, file, { maxBytes: MAX_LOAD_BYTES })
      if (!read.ok) return fail(read.error)
      current = read.data
    }
    if (original === null && current === null)
      return fail(
        `"${file.rel}" exists neither now nor in the baseline. Use list_changed_files to see what changed.`,
      )
    const status =
      original === null
        ? 'added'
        : current === null
          ? 'deleted'
          : original.equals(current)
            ? 'unchanged'
            : 'modified'
    if (status === 'unchanged')
      return { ok: true, path: file.rel, status, summary: `${file.rel}: unchanged`, diff: '' }
    if ((original && isBinary(original)) || (current && isBinary(current))) {
      const sizes = `${formatBytes(original?.length ?? 0)} → ${formatBytes(current?.length ?? 0)}`
      return {
        ok: true,
        path: file.rel,
        status,
        binary: true,
        summary: `${file.rel}: ${status} (binary, ${sizes})`,
        diff: `binary file: ${sizes}`,
      }
    }
    const before = original ? decodeText(original).text : null
    const after = current ? decodeText(current).text : null
    const lines = unifiedDiff(file.rel, before, after).split('\n')
    if (lines[lines.length - 1] === '') lines.pop()
    const max = input.max_lines ?? DIFF_LINES_DEFAULT
    const stat = diffStat(before, after)
    const result: ToolResult = {
      ok: true,
      path: file.rel,
      status,
      summary: `${file.rel}: ${status}, ${stat.added} line(s) added, ${stat.removed} removed`,
      added_lines: stat.added,
      removed_lines: stat.removed,
      diff: lines.slice(0, max).join('\n'),
    }
    if (lines.length > max)
      result.truncated = `${truncatedLines(max, lines.length - max)} Raise max_lines to see more.`
    return result
  },
}

export const reviewTools = [
  getBaselineInfoTool,
  listChangedFilesTool,
  readFileOriginalTool,
  diffFileAgainstOriginalTool,
] as const
