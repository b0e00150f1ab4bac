/*
 * Make code handed on the command line (`make --eval=TEXT`, `-E TEXT`), read for
 * what it would hand to the shell (GNU make manual, "Rule Syntax", "Recipe
 * Syntax", "The shell Function"): the recipe of a rule (`t: ; CMD` or a line
 * starting with a tab), a `$(shell CMD)` anywhere, a `VAR != CMD` assignment.
 * Make expands a recipe before the shell reads it, quotes and all, so a recipe
 * with any expansion but `$$` (`rm $(X)`, `echo '$(Y)'`) cannot be known from the
 * text: the policy refuses it.
 */

export interface MakeCode {
  /** Shell command lines the code would run. */
  lines: string[]
  /** Variables it sets, as `NAME=value` (`SHELL=…` changes how every recipe runs). */
  assignments: string[]
  /** Why what it runs cannot be known from the text; the policy refuses it. */
  unknown?: string
}

/** Make functions whose effect is more make code or a file write, not a value. */
const OPAQUE_FUNCTIONS = /^(eval|call|value|file|guile|load)\b/

/** A make expansion in a value, as the shell would meet it: only known when make runs. */
const EXPANDED = '${MAKE_EXPANSION}'

export function readMakeCode(text: string): MakeCode {
  const code: MakeCode = { lines: [], assignments: [] }
  for (const raw of text.replace(/\\\n/g, ' ').split('\n')) {
    if (raw.startsWith('\t')) {
      code.lines.push(recipe(raw.slice(1), code))
      continue
    }
    const line = raw.replace(/(^|[^\\])#.*$/, '$1')
    const assignment =
      /^\s*(?:(?:override|export|private)\s+)*([^\s:=#!?+]+)\s*(::?=|:::=|\?=|\+=|!=|=)\s*(.*)$/.exec(line)
    if (assignment) {
      const [, name, op, value] = assignment
      if (op === '!=') code.lines.push(shellText(value, code, true))
      else code.assignments.push(`${name}=${shellText(value, code)}`)
      continue
    }
    const rule = /^([^:=]*?)::?(?!=)([^;]*)(?:;(.*))?$/.exec(line)
    if (rule) {
      const [, , prerequisites, body] = rule
      // `t: VAR = value` sets a variable for that target's recipes.
      const targetVariable =
        /^\s*(?:(?:override|export|private)\s+)*([^\s:=#!?+]+)\s*(::?=|\?=|\+=|!=|=)\s*(.*)$/.exec(
          prerequisites,
        )
      if (targetVariable) code.assignments.push(`${targetVariable[1]}=${shellText(targetVariable[3], code)}`)
      else shellText(prerequisites, code)
      if (body !== undefined) code.lines.push(recipe(body, code))
      continue
    }
    shellText(line, code)
  }
  return code
}

/** A recipe line without make's prefixes (`@` silent, `-` ignore errors, `+` always run). */
function recipe(text: string, code: MakeCode): string {
  return shellText(text.replace(/^\s*[@+-]*\s*/, ''), code, true)
}

/**
 * The text the shell receives once make has expanded `text`: `$$` is `$`, every
 * other expansion a value known only then (in a command line, `recipe`: unknown),
 * and a `$(shell CMD)` a command line of its own, pushed to `code.lines`.
 */
function shellText(text: string, code: MakeCode, recipe = false): string {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c !== '$') {
      out += c
      continue
    }
    const next = text[i + 1]
    if (next === '$') {
      out += '$'
      i++
    } else if (next === '(' || next === '{') {
      const end = closing(text, i + 1)
      if (end < 0) {
        code.unknown ??= `an unclosed \`$${next}\` in the make code`
        return out
      }
      const inner = text.slice(i + 2, end).trim()
      const shell = /^shell\s+([\s\S]*)$/.exec(inner)
      if (recipe)
        code.unknown ??= `\`$${next}${inner}${text[end]}\` in a recipe is expanded by make before the shell reads it`
      if (shell) code.lines.push(shellText(shell[1], code, true))
      else if (OPAQUE_FUNCTIONS.test(inner))
        code.unknown ??= `\`$(${inner.split(/\s/)[0]} …)\` in the make code makes more make code or writes a file`
      else shellText(inner, code) // a variable's name or a function's arguments may hold `$(shell …)` too
      out += EXPANDED
      i = end
    } else if (next !== undefined) {
      // `$@`, `$<`, `$X`: a one-character variable.
      if (recipe) code.unknown ??= `\`$${next}\` in a recipe is expanded by make before the shell reads it`
      out += EXPANDED
      i++
    }
  }
  return out
}

/** The index of the bracket closing the one at `open`, counting nested ones. */
function closing(text: string, open: number): number {
  const pair = text[open] === '(' ? ['(', ')'] : ['{', '}']
  let depth = 0
  for (let i = open; i < text.length; i++) {
    if (text[i] === pair[0]) depth++
    else if (text[i] === pair[1] && --depth === 0) return i
  }
  return -1
}
