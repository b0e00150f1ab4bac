import { createRequire } from 'node:module'
import path from 'node:path'
import { Language as Grammar, Parser, Query } from 'web-tree-sitter'
import { errorMessage } from '../../shared/errors'
import { loadLanguage } from '../tree-sitter'
import type { CodeLanguage, Language } from './types'

/*
 * web-tree-sitter with the WASM grammars VS Code ships (@vscode/tree-sitter-wasm):
 * no native build, nothing downloaded. The runtime is initialised once per thread,
 * on first use, and each grammar is loaded on first use too (tree-sitter.ts, which
 * keeps a load on the session's thread from stalling); a grammar that fails to load
 * is remembered (and reported once) rather than retried per file.
 */

// Not named `require`: the bundler adds a `require` shim of its own to ESM chunks.
const nodeRequire = createRequire(import.meta.url)

const GRAMMAR_FILES: Record<CodeLanguage, string> = {
  typescript: 'tree-sitter-typescript.wasm',
  tsx: 'tree-sitter-tsx.wasm',
  javascript: 'tree-sitter-javascript.wasm',
  python: 'tree-sitter-python.wasm',
  go: 'tree-sitter-go.wasm',
  rust: 'tree-sitter-rust.wasm',
  java: 'tree-sitter-java.wasm',
}

const EXTENSIONS: Record<string, Language> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  // The JavaScript grammar parses JSX too.
  '.jsx': 'javascript',
  '.py': 'python',
  '.pyi': 'python',
  '.go': 'go',
  '.rs': 'rust',
  '.java': 'java',
  '.json': 'json',
  '.jsonc': 'json',
  '.yaml': 'yaml',
  '.yml': 'yaml',
}

export function languageOf(rel: string): Language {
  const ext = path.posix.extname(rel).toLowerCase()
  if (ext === '.ts' && rel.endsWith('.d.ts')) return 'typescript'
  return EXTENSIONS[ext] ?? 'other'
}

export function isCodeLanguage(lang: Language): lang is CodeLanguage {
  return Object.hasOwn(GRAMMAR_FILES, lang)
}

/** The folder holding the grammar files; overridable for tests of a broken grammar. */
export function grammarDir(): string {
  return path.join(path.dirname(nodeRequire.resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm')
}

export interface LoadedGrammar {
  loaded: true
  parser: Parser
  language: Grammar
  /** Per-language queries, compiled once (see the extractors). */
  queries: Map<string, Query>
}

/** A grammar that could not be loaded, and why. */
export interface GrammarFailure {
  loaded: false
  error: string
}

const grammars = new Map<CodeLanguage, Promise<LoadedGrammar | GrammarFailure>>()
let directory: string | undefined

/** Points grammar loading at another folder (tests: a folder with a corrupt grammar). */
export function setGrammarDirForTesting(dir: string | undefined): void {
  directory = dir
  grammars.clear()
}

/** The grammar for `lang`, or why it could not be loaded (the same answer on every call). */
export function loadGrammar(lang: CodeLanguage): Promise<LoadedGrammar | GrammarFailure> {
  let pending = grammars.get(lang)
  if (!pending) {
    pending = (async () => {
      try {
        const language = await loadLanguage(path.join(directory ?? grammarDir(), GRAMMAR_FILES[lang]))
        const parser = new Parser()
        parser.setLanguage(language)
        return { loaded: true, parser, language, queries: new Map<string, Query>() }
      } catch (err) {
        return { loaded: false, error: `the ${lang} grammar failed to load (${errorMessage(err)})` }
      }
    })()
    grammars.set(lang, pending)
  }
  return pending
}

/** A query compiled once per grammar and reused for every file. */
export function queryFor(grammar: LoadedGrammar, key: string, source: string): Query {
  let query = grammar.queries.get(key)
  if (!query) {
    query = new Query(grammar.language, source)
    grammar.queries.set(key, query)
  }
  return query
}
