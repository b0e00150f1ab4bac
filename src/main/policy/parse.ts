import v8 from 'node:v8'
import { Parser, type Node } from 'web-tree-sitter'
import { loadLanguage } from '../tree-sitter'
import { reevaluation, type Reevaluation } from './reeval'

/*
 * The command line as bash reads it, through tree-sitter-bash (the grammar VS Code
 * ships as WASM, loaded offline from node_modules). The policy never matches
 * strings: it sees every simple command wherever it sits — in a pipeline, an
 * `&&`/`||`/`;` list, a subshell, a loop, `$(…)`, backticks, `<(…)`, a heredoc.
 */

/** One word of a command, as bash would pass it when it can be known statically. */
export interface Word {
  /** The value after quote removal; for a dynamic word, its source text. */
  value: string
  /** Contains an expansion or substitution (`$X`, `$(…)`, `` `…` ``): its value is only known at run time. */
  dynamic: boolean
  /** Written with ANSI-C quoting (`$'\x72m'`): fine for an argument, a disguise for a command name. */
  ansiC?: boolean
}

export interface Assignment {
  name: string
  source: string
}

export interface Redirect {
  /** `>`, `>>`, `&>`, `<`, `>&`, … */
  operator: string
  target: Word
  source: string
}

export interface SimpleCommand {
  /** The command's text as written (e.g. `rm -rf build`), for messages. */
  source: string
  argv: Word[]
  /** `VAR=value` words before the command name. */
  assignments: Assignment[]
  /** Commands found inside this one's words (`$(…)`, `<(…)`): a pipe to a shell of `$(curl …)` is remote code. */
  nested: SimpleCommand[]
  /** Where its stdin comes from when the line says (`… | cmd`, `cmd <<EOF`, `cmd <<< s`, `cmd < f`). */
  stdin?: 'pipe' | 'heredoc' | 'herestring' | 'file'
  /** The text a heredoc or here-string feeds it, as written. */
  stdinText?: string
}

export interface ParsedLine {
  commands: SimpleCommand[]
  /** Stages of every pipeline, in order (a `curl … | sh` check needs the order). */
  pipelines: SimpleCommand[][]
  redirects: Redirect[]
  /** Assignments that stand alone or in `export`/`declare`/`local`/`readonly`. */
  assignments: Assignment[]
  functions: { name: string; calls: string[]; source: string }[]
  /** Set when bash would not accept the line as written. */
  syntaxError?: string
  /** Set when bash would evaluate quoted text or a value as code (`test -v 'a[$(…)]'`, `${x@P}`). */
  reevaluated?: Reevaluation
}

let parserPromise: Promise<Parser> | undefined

/**
 * V8's budget before it optimises a hot WebAssembly function (`node --v8-options`:
 * --wasm-tiering-budget), and one no command line reaches. The shell parser's
 * instances are made under the second: a command line is parsed in well under a
 * millisecond on V8's baseline code, while optimising the grammar takes ~0.5 s of a
 * V8 task thread, and Node waits for those tasks whenever its event loop runs dry
 * (NodePlatform::DrainTasks) — which held every session's first command ~0.5 s.
 */
const TIERING_BUDGET = 1_800_000
const NEVER_TIER_UP = 2_000_000_000

/**
 * The shared parser; WASM is loaded once, on first use (a session's first command), the way
 * tree-sitter.ts loads every grammar: the runtime compiled on this thread, the event loop held open.
 */
export function loadShellParser(): Promise<Parser> {
  parserPromise ??= (async () => {
    v8.setFlagsFromString(`--wasm-tiering-budget=${NEVER_TIER_UP}`)
    try {
      const language = await loadLanguage('@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm')
      const parser = new Parser()
      parser.setLanguage(language)
      return parser
    } finally {
      // Read when an instance is made: the index's grammars (in its worker threads) keep V8's default.
      v8.setFlagsFromString(`--wasm-tiering-budget=${TIERING_BUDGET}`)
    }
  })()
  parserPromise.catch(() => (parserPromise = undefined))
  return parserPromise
}

export function parseShell(parser: Parser, text: string): ParsedLine {
  const tree = parser.parse(text)
  if (!tree) throw new Error('tree-sitter returned no tree for a command line')
  try {
    const line: ParsedLine = { commands: [], pipelines: [], redirects: [], assignments: [], functions: [] }
    walk(tree.rootNode, line, [])
    if (tree.rootNode.hasError) line.syntaxError = describeError(tree.rootNode, text)
    line.reevaluated = reevaluation(tree.rootNode) ?? undefined
    return line
  } finally {
    tree.delete()
  }
}

function walk(node: Node, line: ParsedLine, sink: SimpleCommand[]): void {
  switch (node.type) {
    case 'command': {
      // Pushed before its words are read, so a command precedes the ones nested in it.
      const command: SimpleCommand = { source: node.text, argv: [], assignments: [], nested: [] }
      line.commands.push(command)
      sink.push(command)
      readCommand(node, command, line)
      return
    }
    case 'pipeline': {
      const stages: SimpleCommand[] = []
      for (const child of node.namedChildren) {
        const before = line.commands.length
        walk(child, line, sink)
        // The stage's own command is the first one it added (its inner substitutions come after).
        const first = line.commands[before]
        if (!first) continue
        if (stages.length > 0) first.stdin ??= 'pipe'
        stages.push(first)
      }
      line.pipelines.push(stages)
      return
    }
    case 'redirected_statement': {
      // `sh <<EOF … EOF`, `bash < x.sh`: the redirect feeds the statement's command.
      const before = line.commands.length
      const body = node.childForFieldName('body')
      if (body) walk(body, line, sink)
      const first = body?.type === 'command' ? line.commands[before] : undefined
      for (const child of node.namedChildren) {
        if (child.equals(body!)) continue
        if (first) {
          first.stdin = stdinOf(child) ?? first.stdin
          if (child.type === 'heredoc_redirect')
            first.stdinText = child.namedChildren.find((c) => c.type === 'heredoc_body')?.text ?? ''
        }
        walk(child, line, sink)
      }
      return
    }
    case 'file_redirect':
      line.redirects.push(redirect(node, line, sink))
      return
    case 'variable_assignment':
      line.assignments.push(assignment(node))
      break
    case 'function_definition': {
      const name = node.childForFieldName('name')?.text ?? ''
      const body = node.childForFieldName('body')
      const calls = body ? body.descendantsOfType('command_name').map((n) => n.text) : []
      line.functions.push({ name, calls, source: node.text })
      break
    }
  }
  for (const child of node.namedChildren) walk(child, line, sink)
}

function readCommand(node: Node, command: SimpleCommand, line: ParsedLine): void {
  for (const child of node.namedChildren) {
    if (child.type === 'variable_assignment') {
      command.assignments.push(assignment(child))
      for (const inner of child.namedChildren) walk(inner, line, command.nested)
    } else if (child.type === 'file_redirect' || child.type === 'herestring_redirect') {
      command.stdin = stdinOf(child) ?? command.stdin
      const fed = child.type === 'herestring_redirect' ? child.namedChildren[0] : undefined
      if (fed) command.stdinText = wordOf(fed).value
      walk(child, line, command.nested)
    } else {
      const word = child.type === 'command_name' ? child.namedChildren[0] : child
      if (!word) continue
      command.argv.push(wordOf(word))
      for (const inner of word.namedChildren) walk(inner, line, command.nested)
    }
  }
}

function stdinOf(node: Node): SimpleCommand['stdin'] {
  if (node.type === 'heredoc_redirect') return 'heredoc'
  if (node.type === 'herestring_redirect') return 'herestring'
  const operator = node.children.find((c) => !c.isNamed)?.type
  if (node.type === 'file_redirect' && (operator === '<' || operator === '<>')) return 'file'
  return undefined
}

function redirect(node: Node, line: ParsedLine, sink: SimpleCommand[]): Redirect {
  const operator = node.children.find((c) => !c.isNamed)?.type ?? '>'
  const destination = node.childForFieldName('destination')
  for (const child of node.namedChildren) walk(child, line, sink)
  return {
    operator,
    target: destination ? wordOf(destination) : { value: '', dynamic: true },
    source: node.text,
  }
}

function assignment(node: Node): Assignment {
  return { name: node.childForFieldName('name')?.text ?? '', source: node.text }
}

const DYNAMIC_TYPES = new Set([
  'simple_expansion',
  'expansion',
  'command_substitution',
  'process_substitution',
  'arithmetic_expansion',
])

/** A word's value after quote removal, or its source when it depends on an expansion. */
export function wordOf(node: Node): Word {
  const value = staticValue(node)
  const word: Word = value === null ? { value: node.text, dynamic: true } : { value, dynamic: false }
  if (node.type === 'ansi_c_string' || node.descendantsOfType('ansi_c_string').length > 0) word.ansiC = true
  return word
}

function staticValue(node: Node): string | null {
  if (DYNAMIC_TYPES.has(node.type)) return null
  switch (node.type) {
    case 'word':
      return unescapeWord(node.text)
    case 'number':
    case 'string_content':
    case 'heredoc_content':
      return node.type === 'string_content' ? unescapeDoubleQuoted(node.text) : node.text
    case 'raw_string':
      return node.text.slice(1, -1)
    case 'ansi_c_string':
      return decodeAnsiC(node.text.slice(2, -1))
    case 'string': {
      let out = ''
      for (const part of node.namedChildren) {
        const v = staticValue(part)
        if (v === null) return null
        out += v
      }
      return out
    }
    case 'concatenation': {
      let out = ''
      for (const part of node.children) {
        const v = part.isNamed ? staticValue(part) : part.text
        if (v === null) return null
        out += v
      }
      return out
    }
    default:
      return null
  }
}

function unescapeWord(text: string): string {
  return text.replace(/\\\n/g, '').replace(/\\(.)/g, '$1')
}

function unescapeDoubleQuoted(text: string): string {
  return text.replace(/\\\n/g, '').replace(/\\([$`"\\])/g, '$1')
}

/** bash's `$'…'` escapes, so `rm $'\x2drf'` reads as `rm -rf`. */
function decodeAnsiC(text: string): string {
  const map: Record<string, string> = {
    n: '\n',
    t: '\t',
    r: '\r',
    a: '\x07',
    b: '\b',
    e: '\x1b',
    E: '\x1b',
    f: '\f',
    v: '\v',
    '\\': '\\',
    "'": "'",
    '"': '"',
    '?': '?',
  }
  const code = (hex: string, base: number) => String.fromCodePoint(parseInt(hex, base))
  return text.replace(
    /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/g,
    (_, esc: string) => {
      if (/^x/.test(esc)) return code(esc.slice(1), 16)
      if (/^[uU]/.test(esc)) return code(esc.slice(1), 16)
      if (/^[0-7]/.test(esc)) return code(esc, 8)
      if (esc.startsWith('c') && esc.length === 2) return String.fromCharCode(esc.charCodeAt(1) & 31)
      return map[esc] ?? `\\${esc}`
    },
  )
}

function describeError(root: Node, text: string): string {
  const bad = root.descendantsOfType('ERROR')[0] ?? findMissing(root)
  if (!bad) return 'bash would not accept this command line'
  const at = bad.startIndex
  const near = text.slice(at, at + 30).split('\n')[0]
  if (bad.isMissing) return `a "${bad.type}" is missing near character ${at + 1}`
  return near.trim() === ''
    ? `unexpected end of the command line (an unclosed quote, bracket or block?)`
    : `syntax error near "${near}" (character ${at + 1})`
}

function findMissing(node: Node): Node | null {
  if (node.isMissing) return node
  for (const child of node.children) {
    const found = findMissing(child)
    if (found) return found
  }
  return null
}
