import fs from 'node:fs/promises'
import { analyzeFile } from '../codeindex/analyze'
import type { CodeIndex } from '../codeindex/code-index'
import type { FileFacts } from '../codeindex/types'
import type { ResolvedPath } from '../containment/types'
import { definitionsOf } from '../codeindex/graph'
import { cap } from './code-outline'
import { MAX_LOAD_BYTES, readGated, resolveGated, resolvePath } from './files'
import { splitLines } from './text'
import { decodeText } from '../../shared/text-bytes'
import type { ToolContext, ToolResult } from './types'
import { escapeRegExp } from '../../shared/regexp'

/*
 * The code tools on an index that does not cover a file yet (a build still running in the
 * background, a file created a moment ago): the file is parsed now, with the index's own
 * analyser, and the tool answers as if it were indexed. The parse is kept per session and
 * file version (size, mtime), so a model asking twice parses once. On a partial index the
 * project-wide tools say how much is covered, and complete what they can from the files
 * the index has not reached.
 */

const cache = new WeakMap<ToolContext, Map<string, { stamp: string; facts: FileFacts }>>()

/**
 * The facts of a project file the index lacks, parsed now; undefined when it cannot be
 * (ignored or denied, unreadable, too large to load).
 */
export async function factsOnDemand(ctx: ToolContext, file: ResolvedPath): Promise<FileFacts | undefined> {
  if (ctx.sandbox.isIgnored(file.rel)) return undefined
  let stamp: string
  try {
    const stat = await fs.stat(file.abs)
    if (!stat.isFile() || stat.size > MAX_LOAD_BYTES) return undefined
    stamp = `${stat.size}:${stat.mtimeMs}`
  } catch {
    return undefined
  }
  let byFile = cache.get(ctx)
  if (!byFile) cache.set(ctx, (byFile = new Map()))
  const hit = byFile.get(file.rel)
  if (hit?.stamp === stamp) return hit.facts
  const read = readGated(ctx.sandbox.gate, file, { maxBytes: MAX_LOAD_BYTES })
  if (!read.ok) return undefined
  const { facts } = await analyzeFile(file.rel, read.data)
  byFile.set(file.rel, { stamp, facts })
  return facts
}

/** How much of the project a partial index covers, for a project-wide answer; undefined when whole. */
export function coverage(index: CodeIndex): { indexed: number; total?: number } | undefined {
  const building = index.building()
  if (!building || index.complete()) return undefined
  const indexed = index.paths().length
  return { indexed, ...(building.total > 0 ? { total: building.total } : {}) }
}

/** Adds the coverage of a partial index to a result, with what the tool did about the rest. */
export function notePartial(
  result: ToolResult,
  cover: { indexed: number; total?: number },
  completed: string,
): void {
  if (!result.ok) return
  const of = cover.total !== undefined ? ` of ${cover.total}` : ''
  result.coverage = {
    partial: true,
    indexed_files: cover.indexed,
    ...(cover.total ? { total_files: cover.total } : {}),
  }
  result.coverage_note = `The code index is still being built: it covers ${cover.indexed}${of} files so far. ${completed}`
}

/** Most files outside the index read to complete a project-wide answer. */
export const MAX_UNINDEXED_FILES = 30

/**
 * Project files the index does not cover yet that mention `word` (as a whole word, exact case),
 * found with ripgrep, at most MAX_UNINDEXED_FILES.
 */
export async function unindexedFilesMentioning(
  ctx: ToolContext,
  index: CodeIndex,
  word: string,
): Promise<string[]> {
  const files: string[] = []
  const pathOf = (line: Buffer) => line.toString('utf8').replace(/\r$/, '').replace(/^\.\//, '')
  await ctx.sandbox.ripgrep(
    ['--files-with-matches', '--word-regexp', '--fixed-strings', '--case-sensitive', '--regexp', word],
    {
      signal: ctx.signal,
      fileOf: pathOf,
      onLine: (line) => {
        const rel = pathOf(line)
        if (rel && !index.file(rel)) files.push(rel)
        return files.length < MAX_UNINDEXED_FILES
      },
    },
  )
  return files.sort()
}

/** Where a partial index's structure was asked for: under `prefix`, how far the index got, how many to list. */
export interface UnindexedScope {
  index: CodeIndex
  prefix: string | undefined
  cover: { indexed: number; total?: number }
  max: number
}

/** A partial index's structure also names the files it has not reached, from the listing. */
export async function listUnindexed(
  ctx: ToolContext,
  result: Record<string, unknown> & { ok: true },
  scope: UnindexedScope,
): Promise<void> {
  const { index, prefix, cover, max } = scope
  const { files } = await ctx.sandbox.listFiles({ prefix, signal: ctx.signal })
  const rest = files.filter((p) => !index.file(p))
  if (rest.length > 0)
    result.not_indexed_yet = cap(rest, max, result, 'Call get_structure on a file to outline it now.')
  notePartial(
    result,
    cover,
    'Files not indexed yet are listed in not_indexed_yet; get_structure on one of them outlines it now.',
  )
}

/** Definitions of `symbol` in files the index has not reached, parsed now. */
export async function definitionsOutsideIndex(ctx: ToolContext, index: CodeIndex, symbol: string) {
  const name = symbol.includes('.') ? symbol.slice(symbol.lastIndexOf('.') + 1) : symbol
  const out: ReturnType<CodeIndex['definitions']> = []
  for (const rel of await unindexedFilesMentioning(ctx, index, name)) {
    const file = resolvePath(ctx, rel)
    const facts = !file.ok ? undefined : await factsOnDemand(ctx, file)
    if (!facts) continue
    for (const d of definitionsOf(rel, facts))
      if (d.name === name && (!symbol.includes('.') || `${d.parent}.${d.name}` === symbol)) out.push(d)
  }
  return out
}

export async function lineTexts(
  ctx: ToolContext,
  refs: Array<{ path: string; line: number }>,
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>()
  for (const p of new Set(refs.map((r) => r.path))) {
    // Through the gate now, not as indexed: a file swapped for a link out of the project (or
    // to a secret) since the index read it shows nothing.
    const file = resolveGated(ctx.sandbox.gate, p)
    const read = !file.ok ? file : readGated(ctx.sandbox.gate, file, { maxBytes: MAX_LOAD_BYTES })
    out.set(p, !read.ok ? [] : splitLines(decodeText(read.data).text))
  }
  return out
}

/** Lines that mention `symbol` as a word in files the index has not reached (text search). */
export async function mentionsOutsideIndex(ctx: ToolContext, index: CodeIndex, symbol: string) {
  const name = symbol.includes('.') ? symbol.slice(symbol.lastIndexOf('.') + 1) : symbol
  const out: Array<{ path: string; line: number }> = []
  const word = new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`)
  const files = await unindexedFilesMentioning(ctx, index, name)
  for (const [rel, lines] of await lineTexts(
    ctx,
    files.map((path) => ({ path, line: 1 })),
  )) {
    lines.forEach((text, i) => {
      if (word.test(text)) out.push({ path: rel, line: i + 1 })
    })
  }
  return out
}

/**
 * A file parsed now: its imports, classified without the project's resolver (which needs the
 * index): a relative import is the project's, anything else is reported as external.
 */
export function importsOf(facts: FileFacts): ReturnType<CodeIndex['dependencies']> {
  return facts.imports.map((i) => ({
    source: i.source,
    line: i.line,
    names: i.names,
    kind: i.source.startsWith('.') || (i.level ?? 0) > 0 ? ('internal' as const) : ('external' as const),
    targets: [],
  }))
}
