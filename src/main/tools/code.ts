import { z } from 'zod'
import type { CodeIndex } from '../codeindex/code-index'
import type { FileFacts, FunctionFact, MethodFact } from '../codeindex/types'
import { cap, classSummary, lines, outline, signature } from './code-outline'
import {
  coverage,
  definitionsOutsideIndex,
  factsOnDemand,
  importsOf,
  lineTexts,
  listUnindexed,
  mentionsOutsideIndex,
  notePartial,
} from './code-demand'
import { fail, loadTextFile, resolvePath, statKind } from './files'
import { optionalString, pathArg } from './schema'
import { numberedView, splitLines, truncatedItems, truncatedLines } from './text'
import type { Outcome, ReadTool, ToolContext, ToolResult } from './types'
import { pushAll } from '../../shared/arrays'

/*
 * The `code` family (docs/tools.md#the-families): answers from the code index (src/main/codeindex)
 * instead of reading whole files, so a small model can find its way around a
 * large project. Sources (get_function, get_class) are read from disk at the
 * line range the index recorded.
 */

const MAX_FILES_LISTED = 200
const MAX_DEFINITIONS = 50
const MAX_REFERENCES = 100
const MAX_DEPENDENTS = 200
const MAX_COMPLEXITY = 30
const MAX_TODOS = 200
const MAX_LINE_TEXT = 200

const NO_INDEX =
  'The code index is not available in this session (it is still being built, or indexing is off). Use list_files, search_in_files and read_file instead.'

type Scope = Outcome<
  | { index: CodeIndex; rel?: string; kind: 'all' | 'directory' }
  | { index: CodeIndex; rel: string; kind: 'file'; facts: FileFacts; onDemand?: true }
>

/**
 * The index and, when given, the path resolved through the sandbox and classified. A file
 * the index does not cover yet is parsed now (code-demand.ts) and answered as if indexed.
 */
async function scope(ctx: ToolContext, input: string | undefined): Promise<Scope> {
  const index = ctx.index
  if (!index) return fail(NO_INDEX)
  if (input === undefined || input.trim() === '' || input.trim() === '.')
    return { ok: true, index, kind: 'all' }
  const resolved = resolvePath(ctx, input)
  if (!resolved.ok) return resolved
  if (resolved.rel === '.') return { ok: true, index, kind: 'all' }
  const indexed = index.file(resolved.rel)
  if (indexed) return { ok: true, index, rel: resolved.rel, kind: 'file', facts: indexed }
  const { kind } = await statKind(resolved.abs)
  if (kind === 'directory') return { ok: true, index, rel: resolved.rel, kind: 'directory' }
  if (kind === 'missing')
    return fail(`"${input}" does not exist. Call get_structure without a path to see the project's layout.`)
  const facts = kind === 'file' ? await factsOnDemand(ctx, resolved) : undefined
  if (facts) return { ok: true, index, rel: resolved.rel, kind: 'file', facts, onDemand: true }
  return fail(
    `"${resolved.rel}" is not in the code index (ignored, too large, or not a regular file). Use read_file to read it.`,
  )
}

function indexedFile(
  s: Scope,
  input: string,
): Outcome<{ index: CodeIndex; rel: string; facts: FileFacts; onDemand?: true }> {
  if (!s.ok) return s
  if (s.kind !== 'file')
    return fail(`"${input}" is a directory; give a file path (get_structure lists the files in it).`)
  return { ok: true, index: s.index, rel: s.rel, facts: s.facts, onDemand: s.onDemand }
}

const structureInput = z.object({
  path: optionalString(
    'A file (its outline) or a folder (its files and their symbols). Omit for the whole project.',
  ),
})

export const getStructureTool: ReadTool<typeof structureInput> = {
  name: 'get_structure',
  family: 'code',
  mutating: false,
  description:
    "The shape of the code without reading it. For a file: its imports, exports, functions (signatures, line ranges), classes (methods, properties), variables. For a folder or the whole project: each file's language, lines and top-level symbols, plus the most-imported files (hubs) and entry points.",
  input: structureInput,
  async run(input, ctx) {
    const s = await scope(ctx, input.path)
    if (!s.ok) return s
    if (s.kind === 'file') return { ok: true, path: s.rel, ...outline(s.facts) }
    const paths = s.index.paths(s.rel)
    const result: Record<string, unknown> & { ok: true } = {
      ok: true,
      path: s.rel ?? '.',
      file_count: paths.length,
    }
    if (s.kind === 'all') {
      const status = s.index.status()
      result.languages = status.languages
      result.hubs = s.index.hubs(10).map((h) => `${h.path} (imported by ${h.dependents})`)
      result.entry_points = s.index
        .entryPoints()
        .slice(0, 10)
        .map((e) => `${e.path}: ${e.reason}`)
      if (status.warning) result.warning = status.warning
    }
    const shown = cap(paths, MAX_FILES_LISTED, result, 'Call get_structure with a subfolder to see the rest.')
    result.files = shown.map((p) => {
      const f = s.index.file(p)!
      const symbols = [...f.classes.map((c) => c.name), ...f.functions.map((fn) => fn.name)]
      return `${p} (${f.language}, ${f.lines} lines${symbols.length ? ': ' + symbols.slice(0, 8).join(', ') + (symbols.length > 8 ? ', …' : '') : ''})`
    })
    if (paths.length === 0) result.note = 'No indexed files here.'
    const cover = coverage(s.index)
    if (cover)
      await listUnindexed(ctx, result, { index: s.index, prefix: s.rel, cover, max: MAX_FILES_LISTED })
    return result
  },
}

/** The numbered source of lines `from`..`to`, read from disk now. */
async function sourceOf(ctx: ToolContext, rel: string, from: number, to: number): Promise<ToolResult> {
  const resolved = resolvePath(ctx, rel)
  if (!resolved.ok) return resolved
  const loaded = await loadTextFile(resolved, ctx.sandbox.gate)
  if (!loaded.ok) return loaded
  const all = splitLines(loaded.text)
  if (from > all.length)
    return fail(`"${rel}" changed since it was indexed (it has only ${all.length} lines now). Use read_file.`)
  const view = numberedView(all, from, Math.min(to, all.length), ctx.limits.maxReadBytes)
  const out: ToolResult = { ok: true, start_line: from, end_line: view.lastLine, source: view.content }
  if (view.remaining > 0)
    out.truncated = `${truncatedLines(view.lastLine - from + 1, view.remaining)} Call read_file with start_line=${view.lastLine + 1} to continue.`
  return out
}

const functionInput = z.object({
  path: pathArg('The file that defines the function.'),
  name: z.string().min(1).describe('The function name; for a method, "method" or "Class.method".'),
})

function findFunction(
  facts: FileFacts,
  name: string,
): { fn: FunctionFact | MethodFact; owner?: string } | string[] {
  const [owner, method] = name.includes('.')
    ? [name.slice(0, name.lastIndexOf('.')), name.slice(name.lastIndexOf('.') + 1)]
    : [undefined, name]
  const direct = facts.functions.find((f) => f.name === name)
  if (direct) return { fn: direct }
  for (const c of facts.classes) {
    if (owner && c.name !== owner) continue
    const m = c.methods.find((x) => x.name === method)
    if (m) return { fn: m, owner: c.name }
  }
  return [
    ...facts.functions.map((f) => f.name),
    ...facts.classes.flatMap((c) => c.methods.map((m) => `${c.name}.${m.name}`)),
  ]
}

export const getFunctionTool: ReadTool<typeof functionInput> = {
  name: 'get_function',
  family: 'code',
  mutating: false,
  description:
    'The source of one function or method, with line numbers ("12\\tcode"), its signature and line range. Cheaper than reading the whole file.',
  input: functionInput,
  async run(input, ctx) {
    const file = indexedFile(await scope(ctx, input.path), input.path)
    if (!file.ok) return file
    const found = findFunction(file.facts, input.name.trim())
    if (Array.isArray(found))
      return fail(
        `No function "${input.name}" in ${file.rel}.` +
          (found.length > 0
            ? ` It defines: ${found.slice(0, 40).join(', ')}.`
            : ' It defines no functions.') +
          ' Use find_definition to search the whole project.',
      )
    const source = await sourceOf(ctx, file.rel, found.fn.line, found.fn.endLine)
    if (!source.ok) return source
    return {
      ...source,
      path: file.rel,
      name: found.owner ? `${found.owner}.${found.fn.name}` : found.fn.name,
      signature: signature(found.fn.name, found.fn),
    }
  },
}

const classInput = z.object({
  path: pathArg('The file that defines the class (or interface, struct, trait, enum).'),
  name: z.string().min(1).describe('The class name.'),
})

export const getClassTool: ReadTool<typeof classInput> = {
  name: 'get_class',
  family: 'code',
  mutating: false,
  description:
    'One class (or interface, struct, trait, enum): what it extends and implements, its properties and methods with line ranges, and its source with line numbers.',
  input: classInput,
  async run(input, ctx) {
    const file = indexedFile(await scope(ctx, input.path), input.path)
    if (!file.ok) return file
    const c = file.facts.classes.find((x) => x.name === input.name.trim())
    if (!c) {
      const names = file.facts.classes.map((x) => x.name)
      return fail(
        `No class "${input.name}" in ${file.rel}.` +
          (names.length > 0 ? ` It defines: ${names.join(', ')}.` : ' It defines no classes.') +
          ' Use find_definition to search the whole project.',
      )
    }
    const source = await sourceOf(ctx, file.rel, c.line, c.endLine)
    if (!source.ok) return source
    return { ...source, path: file.rel, ...classSummary(c) }
  },
}

const symbolInput = z.object({
  symbol: z
    .string()
    .min(1)
    .describe('A name: function, class, method ("save" or "Store.save"), type or variable.'),
})

export const findDefinitionTool: ReadTool<typeof symbolInput> = {
  name: 'find_definition',
  family: 'code',
  mutating: false,
  description:
    'Where a symbol is defined: each definition site with path, line range and kind (exported ones first). Use get_function or get_class next to read it.',
  input: symbolInput,
  async run(input, ctx) {
    if (!ctx.index) return fail(NO_INDEX)
    const symbol = input.symbol.trim()
    const defs = [...ctx.index.definitions(symbol)]
    const cover = coverage(ctx.index)
    // A partial index: the files it has not reached that mention the name are parsed now.
    if (cover) pushAll(defs, await definitionsOutsideIndex(ctx, ctx.index, symbol))
    const result: ToolResult = { ok: true, symbol: input.symbol, count: defs.length }
    result.definitions = cap(defs, MAX_DEFINITIONS, result, 'Ask with "Class.method" to narrow it.').map(
      (d) => ({
        path: d.path,
        lines: lines(d),
        kind: d.kind,
        ...(d.parent ? { class: d.parent } : {}),
        ...(d.exported ? { exported: true } : {}),
      }),
    )
    if (defs.length === 0)
      result.note = `No definition of "${input.symbol}" in the index. It may come from a dependency; search_in_files finds any text.`
    if (cover)
      notePartial(
        result,
        cover,
        'Files not indexed yet that mention the name were parsed now and are included.',
      )
    return result
  },
}

export const findReferencesTool: ReadTool<typeof symbolInput> = {
  name: 'find_references',
  family: 'code',
  mutating: false,
  description:
    'Where a name is used: each line (path, line, text) that mentions the identifier in code (comments and strings excluded), definition sites left out. Matches by name, so unrelated symbols with the same name appear too.',
  input: symbolInput,
  async run(input, ctx) {
    if (!ctx.index) return fail(NO_INDEX)
    const found = ctx.index.references(input.symbol.trim(), MAX_REFERENCES)
    const references = [...found.references]
    let truncated = found.truncated
    const cover = coverage(ctx.index)
    if (cover && !truncated) {
      // A partial index: lines of the files it has not reached that use the name, found by text.
      const extra = await mentionsOutsideIndex(ctx, ctx.index, input.symbol.trim())
      truncated = references.length + extra.length > MAX_REFERENCES
      pushAll(references, extra.slice(0, MAX_REFERENCES - references.length))
    }
    const texts = await lineTexts(ctx, references)
    const result: ToolResult = {
      ok: true,
      symbol: input.symbol,
      count: references.length,
      references: references.map((r) => ({
        path: r.path,
        line: r.line,
        text: (texts.get(r.path)?.[r.line - 1] ?? '').trim().slice(0, MAX_LINE_TEXT),
      })),
    }
    if (truncated)
      result.truncated = `${truncatedItems(MAX_REFERENCES)} Use search_in_files with a prefix to see more.`
    if (references.length === 0) result.note = `No references to "${input.symbol}" outside its definitions.`
    if (cover)
      notePartial(
        result,
        cover,
        'Files not indexed yet were searched as text (whole word, exact case) and their lines are included; a definition there may show among them.',
      )
    return result
  },
}

const fileInput = z.object({ path: pathArg('A file in the project, e.g. "src/index.ts".') })

export const getDependenciesTool: ReadTool<typeof fileInput> = {
  name: 'get_dependencies',
  family: 'code',
  mutating: false,
  description:
    'What a file imports: each import with its line and kind (internal: a project file, with the file it resolves to; external: a package; builtin: the standard library).',
  input: fileInput,
  async run(input, ctx) {
    const file = indexedFile(await scope(ctx, input.path), input.path)
    if (!file.ok) return file
    const deps = file.onDemand ? importsOf(file.facts) : file.index.dependencies(file.rel)
    return {
      ok: true,
      path: file.rel,
      count: deps.length,
      dependencies: deps.map((d) => ({
        source: d.source,
        line: d.line,
        kind: d.kind,
        ...(d.kind === 'internal'
          ? d.targets.length > 0
            ? { files: d.targets.slice(0, 20) }
            : { unresolved: 'no project file matches this import' }
          : {}),
      })),
    }
  },
}

export const getDependentsTool: ReadTool<typeof fileInput> = {
  name: 'get_dependents',
  family: 'code',
  mutating: false,
  description: 'Which project files import this file: who is affected when you change it.',
  input: fileInput,
  async run(input, ctx) {
    const file = indexedFile(await scope(ctx, input.path), input.path)
    if (!file.ok) return file
    const all = file.index.dependents(file.rel)
    const result: ToolResult = { ok: true, path: file.rel, count: all.length }
    result.dependents = cap(all, MAX_DEPENDENTS, result, 'Use find_references for a single symbol instead.')
    if (all.length === 0) result.note = 'No project file imports it.'
    return result
  },
}

const optionalPathInput = z.object({
  path: optionalString('A file or folder; omit for the whole project.'),
})

export const getComplexityTool: ReadTool<typeof optionalPathInput> = {
  name: 'get_complexity',
  family: 'code',
  mutating: false,
  description:
    'How complex code is: lines of code, deepest nesting, import count and one score (LOC/25 + 2 × nesting + imports/2). For a file, its figures and longest functions; for a folder or the project, the most complex files first.',
  input: optionalPathInput,
  async run(input, ctx) {
    const s = await scope(ctx, input.path)
    if (!s.ok) return s
    if (s.kind === 'file') {
      const f = s.facts
      const fns = [
        ...f.functions,
        ...f.classes.flatMap((c) => c.methods.map((m) => ({ ...m, name: `${c.name}.${m.name}` }))),
      ]
        .map((fn) => ({ name: fn.name, lines: fn.endLine - fn.line + 1 }))
        .sort((a, b) => b.lines - a.lines)
        .slice(0, 10)
      return { ok: true, path: s.rel, ...f.complexity, longest_functions: fns }
    }
    const files = s.index
      .paths(s.rel)
      .map((p) => ({ path: p, ...s.index.file(p)!.complexity }))
      .filter((c) => c.loc > 0)
      .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1))
    const result: ToolResult = { ok: true, path: s.rel ?? '.', count: files.length }
    result.files = cap(files, MAX_COMPLEXITY, result, 'Ask about a subfolder for more.')
    return result
  },
}

export const getTodosTool: ReadTool<typeof optionalPathInput> = {
  name: 'get_todos',
  family: 'code',
  mutating: false,
  description:
    'TODO, FIXME, HACK and XXX comments with their path, line and text; in a file, a folder or the whole project.',
  input: optionalPathInput,
  async run(input, ctx) {
    const s = await scope(ctx, input.path)
    if (!s.ok) return s
    const facts = (p: string) => (s.kind === 'file' ? s.facts : s.index.file(p)!)
    const paths = s.kind === 'file' ? [s.rel] : s.index.paths(s.rel)
    const todos = paths.flatMap((p) =>
      facts(p).todos.map((t) => ({ path: p, line: t.line, tag: t.tag, text: t.text })),
    )
    const result: ToolResult = { ok: true, path: s.rel ?? '.', count: todos.length }
    result.todos = cap(todos, MAX_TODOS, result, 'Ask about a subfolder for more.')
    if (todos.length === 0) result.note = 'No TODO or FIXME comments.'
    return result
  },
}

export const codeTools = [
  getStructureTool,
  getFunctionTool,
  getClassTool,
  findDefinitionTool,
  findReferencesTool,
  getDependenciesTool,
  getDependentsTool,
  getComplexityTool,
  getTodosTool,
] as const
