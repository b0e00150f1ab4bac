import { commandName } from '../argv'
import type { OptionTable } from '../options'
import { CARGO, ESLINT, GO, MAKE, PRETTIER, PYTEST, RUFF } from './build'
import { GIT_SUBCOMMANDS, GIT_TABLES, gitCall } from './git'
import { TAR, USER_ALLOWED_RULES, tarArgs } from './other'
import { DATE, FILE, FIND, HOSTNAME, PRINTF, RG, RM, SED, SORT, TREE, UNIQ } from './text'
import type { ProgramRule } from './types'

/**
 * Every program with a rule, allowlisted or not: the policy judges what their options
 * run and write wherever they appear (`tar --to-command` asks, and is refused when
 * the command it runs is), and user deny patterns read their options with the table.
 */
const PROGRAM_RULES: Readonly<Record<string, ProgramRule>> = {
  rg: RG,
  find: FIND,
  sort: SORT,
  uniq: UNIQ,
  file: FILE,
  tree: TREE,
  date: DATE,
  hostname: HOSTNAME,
  sed: SED,
  printf: PRINTF,
  make: MAKE,
  go: GO,
  cargo: CARGO,
  pytest: PYTEST,
  eslint: ESLINT,
  ruff: RUFF,
  prettier: PRETTIER,
  ...USER_ALLOWED_RULES,
}

/** The rule for an argv's program (a git subcommand's own), with the words it reads. */
export function programRuleOf(argv: readonly string[]): { rule: ProgramRule; args: string[] } | null {
  const name = commandName(argv[0] ?? '')
  if (name === 'git') {
    const call = gitCall(argv)
    const rule = call && GIT_SUBCOMMANDS[call.subcommand]
    return call && rule ? { rule, args: call.args } : null
  }
  const rule = PROGRAM_RULES[name]
  if (!rule) return null
  return { rule, args: rule === TAR ? tarArgs(argv.slice(1)) : argv.slice(1) }
}

/** The option table for an argv's program (a git subcommand's own), with the words it reads. */
export function optionTableOf(argv: readonly string[]): { table: OptionTable; args: string[] } | null {
  const name = commandName(argv[0] ?? '')
  if (name === 'git') {
    const call = gitCall(argv)
    const table = call && GIT_TABLES[call.subcommand]
    return call && table ? { table, args: call.args } : null
  }
  if (name === 'rm') return { table: RM, args: argv.slice(1) }
  const rule = PROGRAM_RULES[name]
  return rule ? { table: rule.table, args: argv.slice(1) } : null
}
