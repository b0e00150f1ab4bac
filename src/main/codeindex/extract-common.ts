import type { Node, QueryCapture, Tree } from 'web-tree-sitter'
import { queryFor, type LoadedGrammar } from './parser'
import type { Complexity, FileFacts, TodoFact } from './types'

/*
 * Helpers every language extractor shares. Nothing here recurses over the tree:
 * the parser's queries run inside WASM and hand back the few nodes we need
 * (comments, strings, control flow), so a 10,000-level nesting costs no stack.
 */

export const line = (node: Node): number => node.startPosition.row + 1
export const endLine = (node: Node): number => node.endPosition.row + 1

/** A node's text on one line, whitespace collapsed and cut, for signatures and types. */
export function squash(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat
}

/** Unnamed and named children's types up to (not including) the first child of `stopType`, for modifiers. */
export function leadingTokens(node: Node, stopAt?: Node | null): Set<string> {
  const out = new Set<string>()
  for (const child of node.children) {
    if (!child || (stopAt && child.startIndex >= stopAt.startIndex)) break
    out.add(child.type)
    if (child.type === 'accessibility_modifier' || child.type === 'visibility_modifier') out.add(child.text)
  }
  return out
}

export function emptyFacts(partial: Pick<FileFacts, 'language' | 'kind' | 'size' | 'lines'>): FileFacts {
  return {
    ...partial,
    parseErrors: 0,
    imports: [],
    exports: [],
    functions: [],
    classes: [],
    variables: [],
    todos: [],
    complexity: { loc: 0, maxNesting: 0, imports: 0, score: 0 },
  }
}

const TODO_RE = /\b(TODO|FIXME|HACK|XXX)\b[:\s(-]*(.*)/
const TODO_TAGS: ReadonlySet<string> = new Set<TodoFact['tag']>(['TODO', 'FIXME', 'HACK', 'XXX'])

function isTodoTag(tag: string): tag is TodoFact['tag'] {
  return TODO_TAGS.has(tag)
}

/** TODO/FIXME/HACK/XXX in comment nodes, one per line they appear on. */
export function todosIn(comments: readonly Node[]): TodoFact[] {
  const out: TodoFact[] = []
  for (const comment of comments) {
    const text = comment.text
    if (!/TODO|FIXME|HACK|XXX/.test(text)) continue
    const lines = text.split('\n')
    for (let i = 0; i < lines.length; i++) {
      const m = TODO_RE.exec(lines[i])
      const tag = m?.[1]
      if (!m || !tag || !isTodoTag(tag)) continue
      const rest = m[2].replace(/\*\/\s*$/, '').trim()
      out.push({ line: line(comment) + i, tag, text: squash(rest, 200) })
    }
  }
  return out
}

/**
 * The deepest nesting among ranges given in document order (as a query returns
 * them): a stack of the ranges still open at each start.
 */
export function maxNesting(ranges: readonly Node[]): number {
  const open: number[] = []
  let max = 0
  for (const node of ranges) {
    const start = node.startIndex
    while (open.length > 0 && open[open.length - 1] <= start) open.pop()
    open.push(node.endIndex)
    if (open.length > max) max = open.length
  }
  return max
}

/** Lines with code: not blank, and not only a comment. */
export function linesOfCode(text: string, comments: readonly Node[]): number {
  const lines = text.split('\n')
  let nonBlank = 0
  const isCode = new Uint8Array(lines.length)
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '') {
      isCode[i] = 1
      nonBlank++
    }
  }
  for (const c of comments) {
    const first = c.startPosition.row
    const last = c.endPosition.row
    // The comment's first line counts as code when something precedes it on that line.
    const before = lines[first]?.slice(0, c.startPosition.column).trim() ?? ''
    const after = first === last ? (lines[last]?.slice(c.endPosition.column).trim() ?? '') : ''
    for (let row = first; row <= last && row < lines.length; row++) {
      if (row === first && (before !== '' || after !== '')) continue
      if (row === last && row !== first && (lines[row]?.slice(c.endPosition.column).trim() ?? '') !== '')
        continue
      if (isCode[row]) {
        isCode[row] = 0
        nonBlank--
      }
    }
  }
  return nonBlank
}

/**
 * One number for "how hard is this file to hold in your head": a point per 25
 * lines of code, two per level of nesting, half a point per import.
 */
export function complexityOf(loc: number, nesting: number, imports: number): Complexity {
  const score = Math.round((loc / 25 + 2 * nesting + imports / 2) * 10) / 10
  return { loc, maxNesting: nesting, imports, score }
}

/** ERROR and MISSING nodes in a tree that has errors (0 when it has none). */
export function countParseErrors(grammar: LoadedGrammar, tree: Tree): number {
  if (!tree.rootNode.hasError) return 0
  const errors = queryFor(grammar, 'errors', '(ERROR) @error').captures(tree.rootNode, { matchLimit: 1000 })
  return Math.max(1, errors.length)
}

export interface SharedCaptures {
  comments: Node[]
  nesting: Node[]
  /** Strings, comments and regexes: identifier scanning skips them. */
  skip: Node[]
  /** Language-specific captures by name (`require` calls and the like). */
  other: QueryCapture[]
}

/** Runs the language's shared query once and sorts the captures into their roles. */
export function sharedCaptures(grammar: LoadedGrammar, source: string, tree: Tree): SharedCaptures {
  const out: SharedCaptures = { comments: [], nesting: [], skip: [], other: [] }
  for (const cap of queryFor(grammar, 'shared', source).captures(tree.rootNode)) {
    switch (cap.name) {
      case 'comment':
        out.comments.push(cap.node)
        out.skip.push(cap.node)
        break
      case 'nest':
        out.nesting.push(cap.node)
        break
      case 'skip':
        out.skip.push(cap.node)
        break
      default:
        // Names starting with `_` only serve predicates inside the query.
        if (!cap.name.startsWith('_')) out.other.push(cap)
    }
  }
  return out
}
