import { pushAll } from '../../shared/arrays'
/*
 * Reading a program's options the way its own parser does, so a rule written for
 * `--recursive` also catches `--rec`, `--recursive=x`, `-rf` and `-Rf`. GNU
 * getopt_long and git's parse-options accept any unique prefix of a long option;
 * getopt fails on an ambiguous prefix, so here it means every option it could
 * (the program would not run it, but a rule must never be the one to guess wrong).
 */

/** Whether an option takes a value: never, always (next word or glued), or only glued (`--color=always`). */
export type Arity = 'none' | 'required' | 'optional'

export interface OptionTable {
  /** Long options without the dashes: `{ recursive: 'none', output: 'required' }`. */
  long?: Readonly<Record<string, Arity>>
  /** Short options by letter: `{ r: 'none', o: 'required' }`. */
  short?: Readonly<Record<string, Arity>>
  /** Unique prefixes stand for the whole option (GNU, git). False for Go's flag package, clap, tsc. */
  abbreviations?: boolean
  /** Every `-name` is a long option (Go's flag package, `find`): no short clusters. */
  singleDashLong?: boolean
  /** Options end at the first operand (git's global options, wrappers); GNU tools read options anywhere. */
  stopAtOperand?: boolean
}

export interface Option {
  /** The word as written (`--rec`, `-rf`). */
  raw: string
  /** The full options it stands for (`--recursive`); several for an ambiguous prefix. */
  names: string[]
  value?: string
  /** Not in the table: the program would probably reject it. */
  unknown: boolean
}

export interface Normalised {
  options: Option[]
  operands: string[]
  /** Where the operands start, when the table stops at the first one (index into the args). */
  operandsFrom: number
}

export const NO_OPTIONS: OptionTable = {}

/**
 * A table from two short lists, as a man page reads: `long` is `'recursive force
 * output= color=?'` (`=` takes a value, `=?` an optional glued one), `short` is
 * `'r R f o='`.
 */
export function options(
  spec: { long?: string; short?: string },
  flags: Omit<OptionTable, 'long' | 'short'> = {},
): OptionTable {
  const read = (text = '') => {
    const out: Record<string, Arity> = {}
    for (const word of text.split(/\s+/).filter(Boolean)) {
      if (word.endsWith('=?')) out[word.slice(0, -2)] = 'optional'
      else if (word.endsWith('=')) out[word.slice(0, -1)] = 'required'
      else out[word] = 'none'
    }
    return out
  }
  return { ...flags, long: read(spec.long), short: read(spec.short) }
}

/** The long options `name` may stand for: itself when exact, else every one it prefixes. */
export function resolveLong(name: string, table: OptionTable): string[] {
  const long = table.long ?? {}
  if (Object.hasOwn(long, name)) return [name]
  if (table.abbreviations === false || name === '') return []
  return Object.keys(long).filter((known) => known.startsWith(name))
}

/** Options and operands of `args` (the words after the program name, or after a subcommand). */
export function normalise(args: readonly string[], table: OptionTable): Normalised {
  const options: Option[] = []
  const operands: string[] = []
  const dash = table.singleDashLong ? '-' : '--'
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    if (arg === '--') {
      pushAll(operands, args.slice(i + 1))
      return { options, operands, operandsFrom: i + 1 }
    }
    if (arg.length < 2 || !arg.startsWith('-')) {
      if (table.stopAtOperand) return { options, operands: args.slice(i), operandsFrom: i }
      operands.push(arg)
      continue
    }
    if (arg.startsWith('--') || table.singleDashLong) {
      const body = arg.replace(/^--?/, '')
      const eq = body.indexOf('=')
      const name = eq < 0 ? body : body.slice(0, eq)
      const known = resolveLong(name, table)
      const option: Option = {
        raw: arg,
        names: known.length > 0 ? known.map((k) => dash + k) : [dash + name],
        unknown: known.length === 0,
      }
      if (eq >= 0) option.value = body.slice(eq + 1)
      // Only an unambiguous option that needs a value takes the next word: getopt
      // refuses an ambiguous one, and an unknown one is safest read as a flag.
      else if (known.length === 1 && table.long?.[known[0]] === 'required' && i + 1 < args.length)
        option.value = args[++i]
      options.push(option)
      continue
    }
    // A cluster of short options: `-rf`, `-xvf file`, `-ofile`, `-n5`.
    const short = table.short ?? {}
    for (let k = 1; k < arg.length; k++) {
      const letter = arg[k]
      const arity = Object.hasOwn(short, letter) ? short[letter] : undefined
      const option: Option = { raw: arg, names: [`-${letter}`], unknown: arity === undefined }
      options.push(option)
      if (arity === 'required' || arity === 'optional') {
        const glued = arg.slice(k + 1)
        if (glued !== '') option.value = glued
        else if (arity === 'required' && i + 1 < args.length) option.value = args[++i]
        break
      }
    }
  }
  return { options, operands, operandsFrom: args.length }
}

/** Every full option name the args use, ambiguous prefixes counted as each option they could be. */
export function optionNames(args: readonly string[], table: OptionTable): Set<string> {
  return new Set(normalise(args, table).options.flatMap((o) => o.names))
}

/** The first option among `names` that the args use, as `{option, name}`; null when none. */
export function findOption(
  parsed: Normalised,
  names: Iterable<string>,
): { option: Option; name: string } | null {
  const wanted = new Set(names)
  for (const option of parsed.options) {
    const name = option.names.find((n) => wanted.has(n))
    if (name) return { option, name }
  }
  return null
}

/** `--rec` → "`--rec` (--recursive)", `--pr` → "`--pr` (could be --pre)": how a rule names what it saw. */
export function describeOption(option: Option, name: string): string {
  const bare = option.raw.split('=')[0]
  if (bare === name) return `\`${option.raw}\``
  if (option.names.length > 1) return `\`${option.raw}\` (could be ${name})`
  return `\`${option.raw}\` (${name})`
}

/** Merges tables: a subcommand's own options on top of those every subcommand shares. */
export function mergeTables(...tables: OptionTable[]): OptionTable {
  return {
    ...Object.assign({}, ...tables),
    long: Object.assign({}, ...tables.map((t) => t.long ?? {})),
    short: Object.assign({}, ...tables.map((t) => t.short ?? {})),
  }
}
