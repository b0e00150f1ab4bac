import type { Node } from 'web-tree-sitter'

/*
 * Text that bash reads a second time. A quoted string is inert where a command
 * prints it, but bash evaluates an array subscript inside arithmetic, `test -v`,
 * `printf -v`, `read`, `declare` and `${!x}`, and it runs the substitutions in
 * `${x@P}`: `x='a[$(touch f)]'; echo $((x))` and `test -v 'a[$(touch f)]'` run
 * `touch` though no command substitution is ever written unquoted. (Gemini CLI
 * pull 25935 used `echo $[ x='a[$(touch FLAG)]', x ]` to get past its allowlist.)
 */

/** Builtins that read a name (with its subscript) or an arithmetic expression from their arguments. */
const EVALUATING_BUILTINS = new Set([
  'test',
  '[',
  'printf',
  'read',
  'declare',
  'typeset',
  'local',
  'export',
  'readonly',
  'unset',
  'let',
  'mapfile',
  'readarray',
  'getopts',
  'wait',
  'shift',
  'return',
  'exit',
])

/** Nodes that are themselves arithmetic or name evaluation. */
const EVALUATING_NODES = new Set([
  'arithmetic_expansion',
  'c_style_for_statement',
  'test_command',
  'subscript',
])

/** `test` operators whose operands bash evaluates as arithmetic or as a variable name. */
const TEST_EVALUATES = /\s-(eq|ne|lt|le|gt|ge|v|R)\s/

/** A command substitution or backtick inside text bash does not expand the first time. */
const HIDDEN_SUBSTITUTION = /\$\(|`/

export interface Reevaluation {
  verdict: 'deny' | 'ask'
  why: string
}

/**
 * Whether the line runs code hidden in quoted text (refused) or may run code held
 * in a value it reads at run time (asks: `n=$(cat VERSION); echo $((n+1))` runs
 * whatever subscript the file holds). `${x@P}` is refused outright.
 */
export function reevaluation(root: Node): Reevaluation | null {
  let loaded = false
  let evaluates = false
  const readAtRunTime = new Set<string>()
  const evaluated = new Set<string>()
  const visit = (node: Node): string | null => {
    if (node.type === 'expansion') {
      if (/@P\}$/.test(node.text)) return '`${…@P}` runs the command substitutions inside a value'
      if (/^\$\{!/.test(node.text)) evaluates = true
    }
    if (EVALUATING_NODES.has(node.type)) {
      const names = references(node)
      // `[[ x -eq y ]]` and `-v` evaluate their quoted operands too; `$((1+2))` evaluates nothing.
      if (names.length > 0 || (node.type === 'test_command' && TEST_EVALUATES.test(node.text)))
        evaluates = true
      for (const name of names) evaluated.add(name)
    }
    if (node.type === 'command' && evaluatesNames(node)) evaluates = true
    if (node.type === 'declaration_command' || node.type === 'unset_command') evaluates = true
    if (node.type === 'command') for (const name of readTargets(node)) readAtRunTime.add(name)
    if (node.type === 'variable_assignment' && node.descendantsOfType('command_substitution').length > 0)
      readAtRunTime.add(node.childForFieldName('name')?.text ?? '')
    if (!loaded && isText(node) && HIDDEN_SUBSTITUTION.test(textOf(node))) loaded = true
    for (const child of node.namedChildren) {
      const why = visit(child)
      if (why) return why
    }
    return null
  }
  const why = visit(root)
  if (why) return { verdict: 'deny', why }
  if (loaded && evaluates)
    return {
      verdict: 'deny',
      why: 'a quoted `$(…)` or backtick meets arithmetic, `test -v`, `printf -v`, `read` or `${!…}`, where bash evaluates it',
    }
  const fromData = [...evaluated].find((n) => readAtRunTime.has(n))
  if (fromData)
    return {
      verdict: 'ask',
      why: `arithmetic on \`${fromData}\`, read at run time, runs any \`$(…)\` in an array subscript it holds`,
    }
  return null
}

/** The names an arithmetic context reads (`$((n+1))` reads `n`; `$((1+2))` none). */
function references(node: Node): string[] {
  if (node.type === 'test_command' && !TEST_EVALUATES.test(node.text)) return []
  return node
    .descendantsOfType(['variable_name', 'word'])
    .map((n) => n.text)
    .filter((t) => /^[A-Za-z_]\w*$/.test(t))
}

/** The variables `read`, `mapfile` and `readarray` fill from their input. */
function readTargets(command: Node): string[] {
  const name = command.childForFieldName('name')?.text ?? ''
  if (!['read', 'mapfile', 'readarray'].includes(name)) return []
  return command
    .childrenForFieldName('argument')
    .map((a) => a.text)
    .filter((t) => /^[A-Za-z_]\w*$/.test(t))
}

/** `printf` and `test` read a name only after `-v` (`-R`); the other builtins always may. */
function evaluatesNames(command: Node): boolean {
  const name = command.childForFieldName('name')?.text ?? ''
  if (!EVALUATING_BUILTINS.has(name)) return false
  const args = command.childrenForFieldName('argument').map((a) => a.text.replace(/['"\\]/g, ''))
  if (name === 'printf') return /^-v/.test(args[0] ?? '')
  if (name === 'test' || name === '[') return args.some((a) => a === '-v' || a === '-R')
  return true
}

function isText(node: Node): boolean {
  return ['raw_string', 'string_content', 'ansi_c_string', 'word', 'heredoc_content'].includes(node.type)
}

/** The characters bash sees once quoting is gone: escapes undone, ANSI-C decoded enough to show `$(`. */
function textOf(node: Node): string {
  const text = node.text.replace(/\\\n/g, '').replace(/\\([$`"\\])/g, '$1')
  if (node.type !== 'ansi_c_string') return text
  return text.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3})/g, (_, esc: string) =>
    String.fromCharCode(esc.startsWith('x') ? parseInt(esc.slice(1), 16) : parseInt(esc, 8)),
  )
}
