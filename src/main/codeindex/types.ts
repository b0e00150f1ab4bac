/**
 * What the code index knows about one file. Everything here is a function of the
 * file's path extension and bytes alone, so it is stored keyed by content hash and
 * reused until the bytes change. Import targets are resolved later, against the
 * whole file set (see resolve.ts), because they depend on which other files exist.
 */

export type CodeLanguage = 'typescript' | 'tsx' | 'javascript' | 'python' | 'go' | 'rust' | 'java'
export type ConfigLanguage = 'json' | 'yaml'
export type Language = CodeLanguage | ConfigLanguage | 'other'

/**
 * code: parsed with a grammar · config: JSON/YAML keys · text: other text, counted
 * only · binary: metadata only · skipped: too large, minified, or a grammar that
 * did not load (`skipped` says why).
 */
export type FileKind = 'code' | 'config' | 'text' | 'binary' | 'skipped'

export interface ImportFact {
  /** The module text as written: `./b`, `react`, `os.path`, `github.com/x/y`, `crate::a::b`. */
  source: string
  /** Names brought in (`*` for a namespace or wildcard import, `default` for a default import). */
  names: string[]
  line: number
  typeOnly?: boolean
  /** Python only: the leading dots of a relative import (`from ..a import b` → 2). */
  level?: number
  /** Rust only: `mod x;` declares a child module file rather than importing. */
  mod?: boolean
}

export interface ExportFact {
  name: string
  kind: SymbolKind
  line: number
  /** `export { x } from './y'` and `export * from './y'`. */
  from?: string
}

export type SymbolKind =
  'function' | 'class' | 'interface' | 'type' | 'enum' | 'struct' | 'trait' | 'variable' | 'method' | 'module'

export interface FunctionFact {
  name: string
  params: string[]
  async: boolean
  exported: boolean
  line: number
  endLine: number
}

export interface MethodFact {
  name: string
  params: string[]
  async: boolean
  static: boolean
  visibility: 'public' | 'protected' | 'private'
  line: number
  endLine: number
}

export interface PropertyFact {
  name: string
  type?: string
  static: boolean
  visibility: 'public' | 'protected' | 'private'
  line: number
}

/** Classes and their kin: interfaces, structs, traits, enums (anything with members). */
export interface ClassFact {
  name: string
  kind: 'class' | 'interface' | 'struct' | 'trait' | 'enum'
  exported: boolean
  extends: string[]
  implements: string[]
  methods: MethodFact[]
  properties: PropertyFact[]
  line: number
  endLine: number
}

/** Other named top-level definitions: type aliases, constants, variables. */
export interface VariableFact {
  name: string
  kind: 'variable' | 'type'
  exported: boolean
  line: number
  endLine: number
}

export interface TodoFact {
  line: number
  tag: 'TODO' | 'FIXME' | 'HACK' | 'XXX'
  text: string
}

export interface Complexity {
  /** Non-blank, non-comment-only lines. */
  loc: number
  /** Deepest nesting of control flow and nested functions. */
  maxNesting: number
  imports: number
  /** loc / 25 + 2 × maxNesting + imports / 2, rounded to one decimal (see docs/index.md). */
  score: number
}

export interface FileFacts {
  language: Language
  kind: FileKind
  size: number
  lines: number
  /** ERROR and MISSING nodes in the tree: the file is indexed as far as the parser got. */
  parseErrors: number
  /** Why the file was not parsed (kind `skipped`) or what was left out. */
  note?: string
  /** True when the bytes were not valid UTF-8 (decoded with U+FFFD). */
  invalidUtf8?: boolean
  /** Go/Java package name. */
  package?: string
  imports: ImportFact[]
  exports: ExportFact[]
  functions: FunctionFact[]
  classes: ClassFact[]
  variables: VariableFact[]
  todos: TodoFact[]
  complexity: Complexity
  /** The file runs as a program: `if __name__ == "__main__"`, Go `func main` in package main, Rust `fn main`, Java `static void main`. */
  entry?: boolean
  /** JSON/YAML: top-level keys; package.json's name/main/bin/exports targets. */
  config?: ConfigFacts
}

export interface ConfigFacts {
  format: 'json' | 'yaml' | 'go.mod'
  keys: string[]
  /** package.json: the package name and the files main/bin/module/exports point at. */
  packageName?: string
  entryFiles?: string[]
  /** tsconfig/jsconfig: compilerOptions.baseUrl and paths, and extends. */
  baseUrl?: string
  paths?: Record<string, string[]>
  extends?: string
  /** go.mod: the module path. */
  goModule?: string
}

/** What analysing one file yields: the facts plus its identifier occurrences (for references). */
export interface Analysis {
  facts: FileFacts
  /** `\nname:line,line,…` per distinct identifier (see idents.ts); searched with instr() in SQLite. */
  idents: string
}
