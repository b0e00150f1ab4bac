import type { Word } from './parse'
import { readMakeCode } from './programs/make'
import { programEffects, type Effect } from './programs/types'
import { programRuleOf } from './programs/registry'
import { pushAll } from '../../shared/arrays'

/*
 * What a command hands to another program or to the file system through its
 * options (docs/commands.md, "What an option runs or writes"): `rg --pre PROG`,
 * `sort -o FILE`, `make --eval=CODE`, `git grep -O'CMD'`, `find -exec CMD ;`,
 * `tar --to-command=CMD`, sed's `e` and awk's `system("…")`. The programs' own
 * tables (programs/*.ts) say which options do what; this module turns each use
 * into what the policy already knows how to judge: a command line, or a path
 * written as a redirect's target.
 */

export type HandedOn =
  /** Command lines the program would run, to be parsed and decided like any other. */
  | { kind: 'lines'; raw: string; lines: string[] }
  /** A file it would write: checked like the target of `>`. */
  | { kind: 'write'; raw: string; target: Word }
  /** What it runs cannot be known from the line: the policy refuses the command. */
  | { kind: 'unknown'; raw: string; why: string }

/** Everything `words` (a command, wrappers already peeled off) hands on. */
export function handedOn(words: readonly Word[]): HandedOn[] {
  const argv = words.map((w) => w.value)
  const out = findCommands(words)
  const found = programRuleOf(argv)
  if (!found) return out
  const dynamic = words.filter((w) => w.dynamic).map((w) => w.value)
  for (const used of programEffects(found.rule, found.args)) {
    const { raw, effect, value } = used
    if (value === undefined) continue // the program's default (a pager: GIT_PAGER=cat in every command)
    const isDynamic = dynamic.some((d) => value.includes(d) || raw.includes(d))
    if (effect.kind === 'writes') out.push({ kind: 'write', raw, target: { value, dynamic: isDynamic } })
    else if (isDynamic)
      out.push({ kind: 'unknown', raw, why: `what \`${short(raw)}\` runs is only known at run time` })
    else if (effect.kind === 'make') pushAll(out, makeLines(raw, value))
    else if (effect.kind === 'code')
      out.push({
        kind: 'unknown',
        raw,
        why: `\`${short(raw)}\` is ${effect.language}, which can run any program`,
      })
    else out.push({ kind: 'lines', raw, lines: [lineFor(effect, value)] })
  }
  return out
}

/** The command line that stands for what an option runs, so the shell parser reads it as the program will. */
function lineFor(effect: Effect, value: string): string {
  if (effect.kind !== 'shell' && effect.kind !== 'program' && effect.kind !== 'words') return value
  let line = effect.kind === 'program' ? quote(value) : value
  // Words the program adds (file names, a host): any words, as `"$@"` stands for.
  if (effect.args) line = `${line} "$@"`
  // The program's data on its stdin: a shell or interpreter there runs the data.
  if (effect.stdin) line = `true | (${line})`
  return line
}

function makeLines(raw: string, value: string): HandedOn[] {
  const code = readMakeCode(value)
  // An unknown first: its reason is the one to read when a line built on it is refused too.
  return [
    ...(code.unknown ? [{ kind: 'unknown' as const, raw, why: `\`${short(raw)}\`: ${code.unknown}` }] : []),
    { kind: 'lines', raw, lines: [...code.lines, ...code.assignments.map(assignmentLine)] },
  ]
}

/** `NAME=value` as a shell assignment, so the policy's rules for variables (`SHELL=…`, `GIT_PAGER=…`) apply. */
function assignmentLine(assignment: string): string {
  const at = assignment.indexOf('=')
  return `${assignment.slice(0, at)}=${quote(assignment.slice(at + 1))}`
}

/**
 * `find … -exec CMD ;`, `-execdir`, `-ok`, `-okdir` (findutils manual, "Run
 * Commands"): CMD runs without a shell, `{}` standing for a found path — which
 * begins with the starting point, so it is never read as an option.
 */
function findCommands(words: readonly Word[]): HandedOn[] {
  if (words[0]?.value.replace(/^.*\//, '') !== 'find') return []
  const out: HandedOn[] = []
  for (let i = 1; i < words.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(words[i].value)) continue
    const end = words.findIndex((w, j) => j > i && (w.value === ';' || w.value === '+'))
    const inner = words.slice(i + 1, end < 0 ? words.length : end)
    if (inner.length > 0)
      out.push({ kind: 'lines', raw: words[i].value, lines: [inner.map(wordText).join(' ')] })
    if (end > i) i = end
  }
  return out
}

/** A word as shell text: a literal quoted, a run-time word as written. */
function wordText(word: Word): string {
  return word.dynamic ? word.value : quote(word.value)
}

function quote(text: string): string {
  return /^[\w./@%+:,=-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`
}

function short(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text
}
