import type { Node } from 'web-tree-sitter'
import { decodeText, isBinary } from '../../shared/text-bytes'
import {
  complexityOf,
  countParseErrors,
  emptyFacts,
  linesOfCode,
  maxNesting,
  sharedCaptures,
  todosIn,
} from './extract-common'
import { analyzeConfig } from './extract-config'
import { GO_SHARED_QUERY, extractGo } from './extract-go'
import { JAVA_SHARED_QUERY, extractJava } from './extract-java'
import { JS_CALLS_QUERY, JS_SHARED_QUERY, extractJs } from './extract-js'
import { PYTHON_SHARED_QUERY, extractPython } from './extract-python'
import { RUST_SHARED_QUERY, extractRust } from './extract-rust'
import { collectIdents } from './idents'
import { isCodeLanguage, languageOf, loadGrammar, queryFor } from './parser'
import type { Analysis, CodeLanguage, FileFacts } from './types'

/*
 * One file's bytes → its facts. Never throws for bad input: binary files get
 * metadata, oversized or minified files are skipped with a note, a file the
 * parser chokes on keeps whatever the tree still holds and counts its errors.
 */

/** Files larger than this are not parsed (metadata only); generated bundles live here. */
export const MAX_PARSE_BYTES = 1024 * 1024
/** A line this long means minified or generated code: not worth a parse. */
export const MAX_LINE_LENGTH = 5000

/** Bumped whenever extraction changes, so stored facts from an older build are re-parsed. */
export const EXTRACTOR_VERSION = 1

const SHARED_QUERIES: Record<CodeLanguage, string> = {
  typescript: JS_SHARED_QUERY,
  tsx: JS_SHARED_QUERY,
  javascript: JS_SHARED_QUERY,
  python: PYTHON_SHARED_QUERY,
  go: GO_SHARED_QUERY,
  rust: RUST_SHARED_QUERY,
  java: JAVA_SHARED_QUERY,
}

const JS_LANGUAGES = new Set<CodeLanguage>(['typescript', 'tsx', 'javascript'])

function countLines(text: string): number {
  if (text === '') return 0
  let n = 0
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++
  return text.endsWith('\n') ? n : n + 1
}

function longestLine(text: string): number {
  let longest = 0
  let start = 0
  for (let nl = text.indexOf('\n'); ; nl = text.indexOf('\n', start)) {
    const end = nl === -1 ? text.length : nl
    if (end - start > longest) longest = end - start
    if (nl === -1) return longest
    start = nl + 1
  }
}

/** A file over the parse limit: metadata only, known from its size alone (it is never read). */
export function oversized(rel: string, size: number): Analysis {
  const facts = emptyFacts({ language: languageOf(rel), kind: 'skipped', size, lines: 0 })
  facts.note = `not parsed: ${Math.round(size / 1024)} KB is over the ${MAX_PARSE_BYTES / 1024} KB parse limit`
  return { facts, idents: '' }
}

export async function analyzeFile(rel: string, data: Buffer): Promise<Analysis> {
  const language = languageOf(rel)
  if (isBinary(data))
    return { facts: emptyFacts({ language, kind: 'binary', size: data.length, lines: 0 }), idents: '' }
  if (data.length > MAX_PARSE_BYTES) return oversized(rel, data.length)
  const { text, invalidUtf8 } = decodeText(data)
  const base = { language, size: data.length, lines: countLines(text) }
  let analysis: Analysis
  if (language === 'json' || language === 'yaml' || rel === 'go.mod' || rel.endsWith('/go.mod')) {
    analysis = { facts: analyzeConfig(rel, text, base), idents: '' }
  } else if (!isCodeLanguage(language)) {
    analysis = { facts: emptyFacts({ ...base, kind: 'text' }), idents: '' }
  } else if (longestLine(text) > MAX_LINE_LENGTH) {
    const facts = emptyFacts({ ...base, kind: 'skipped' })
    facts.note = `not parsed: a line longer than ${MAX_LINE_LENGTH} characters (minified or generated code)`
    analysis = { facts, idents: '' }
  } else {
    analysis = await analyzeCode(language, text, base)
  }
  if (invalidUtf8) analysis.facts.invalidUtf8 = true
  return analysis
}

async function analyzeCode(
  language: CodeLanguage,
  text: string,
  base: Pick<FileFacts, 'language' | 'size' | 'lines'>,
): Promise<Analysis> {
  const grammar = await loadGrammar(language)
  if (!grammar.loaded) {
    const facts = emptyFacts({ ...base, kind: 'skipped' })
    facts.note = `not parsed: ${grammar.error}`
    return { facts, idents: '' }
  }
  const tree = grammar.parser.parse(text)
  if (!tree) {
    const facts = emptyFacts({ ...base, kind: 'skipped' })
    facts.note = 'not parsed: the parser gave up on this file'
    return { facts, idents: '' }
  }
  try {
    const shared = sharedCaptures(grammar, SHARED_QUERIES[language], tree)
    if (JS_LANGUAGES.has(language) && /\b(require|import)\s*\(/.test(text))
      for (const cap of queryFor(grammar, 'calls', JS_CALLS_QUERY).captures(tree.rootNode))
        if (!cap.name.startsWith('_')) shared.other.push(cap)
    const facts: FileFacts = {
      ...emptyFacts({ ...base, kind: 'code' }),
      ...extract(language, tree, shared.other),
    }
    facts.parseErrors = countParseErrors(grammar, tree)
    facts.todos = todosIn(shared.comments)
    facts.complexity = complexityOf(
      linesOfCode(text, shared.comments),
      maxNesting(shared.nesting),
      facts.imports.length,
    )
    return { facts, idents: collectIdents(text, shared.skip) }
  } finally {
    tree.delete()
  }
}

function extract(
  language: CodeLanguage,
  tree: NonNullable<ReturnType<import('web-tree-sitter').Parser['parse']>>,
  other: Array<{ name: string; node: Node }>,
): Partial<FileFacts> {
  switch (language) {
    case 'typescript':
    case 'tsx':
    case 'javascript':
      return extractJs(tree, other)
    case 'python':
      return extractPython(tree, other)
    case 'go':
      return extractGo(tree)
    case 'rust':
      return extractRust(tree)
    case 'java':
      return extractJava(tree)
  }
}
