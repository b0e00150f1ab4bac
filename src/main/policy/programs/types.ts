import { leavesProject } from '../argv'
import { describeOption, findOption, normalise, type Normalised, type OptionTable } from '../options'

/*
 * What an allowlisted program may be given and still run unasked. A program that
 * only reads can often be told to run another program or to write a file (`rg
 * --pre`, `sort -o`, `git log --output`): those options are listed here, per
 * program, and read through the option normaliser so no spelling slips past.
 * Such an option never runs unasked, and the policy also judges what it hands on
 * (its `effect`): the command it runs, parsed and decided like any command line,
 * and the file it writes, checked like a redirect's target — so nothing the deny
 * list refuses written plainly runs through another program.
 */

/**
 * What an option's value becomes when the program runs:
 * - `shell`: a command line run by `sh -c` (`git grep -O'…'`, `man -P '…'`, `tar --to-command`);
 * - `program`: a program run without a shell (`rg --pre PROG`, `sort --compress-program=PROG`),
 *   given `args` (`paths`: file names the program finds, `any`: words nobody can see here) and,
 *   with `stdin`, the data as its input (a shell there runs the data);
 * - `words`: like `program`, after splitting the value on blanks (`go test -exec 'prog -x'`);
 * - `make`: make code (`make --eval`), whose recipes and `$(shell …)` calls are shell lines;
 * - `writes`: the path of a file it writes (`sort -o FILE`, `find -fprint FILE`);
 * - `code`: code in a language this check does not read, which can run any program
 *   (vim's ex commands): refused.
 */
export type Effect =
  | { kind: 'shell' | 'program' | 'words'; args?: 'paths' | 'any'; stdin?: boolean }
  | { kind: 'make' | 'writes' }
  | { kind: 'code'; language: string }

/** A dangerous option: why it never runs unasked, and what the policy judges besides. */
export interface Danger {
  why: string
  effect?: Effect
}

/** What the commonest forbidden options do, in the words every program's rule uses. */
export const RUNS = 'runs another program'
export const WRITES: Danger = { why: 'writes to a file', effect: { kind: 'writes' } }

/** A forbidden option that runs its value (`runs('program', {args: 'paths'})`). */
export function runs(
  kind: 'shell' | 'program' | 'words',
  opts: { why?: string; args?: 'paths' | 'any'; stdin?: boolean } = {},
): Danger {
  const { why = RUNS, ...rest } = opts
  return { why, effect: { kind, ...rest } }
}

export interface ProgramRule {
  /** The options the program knows, so abbreviations and values read as it reads them. */
  table: OptionTable
  /** Options that run code or write files: why (a sentence end), or why and what they hand on. */
  forbid?: Readonly<Record<string, string | Danger>>
  /** Most operands that still only read (`uniq in out` writes `out`). */
  maxOperands?: number
  /**
   * Runs the code it is pointed at (test runners, linters with JS configs): an
   * operand or option value outside the project (`/tmp/x.test.ts`, `--config ../x`) asks.
   */
  projectOnly?: boolean
  /** Anything else that makes this use unsafe, as a reason; null when it is fine. */
  check?(parsed: Normalised): string | null
  /** Effects hidden inside an operand or value (awk's `system()`, sed's `e` and `w` commands). */
  inner?(parsed: Normalised): UsedEffect[]
}

/** An effect the arguments use: the option (or script) as written, and the value it hands on. */
export interface UsedEffect {
  raw: string
  effect: Effect
  /** The command line, program or path; undefined when the program falls back to a default. */
  value?: string
}

const whyOf = (d: string | Danger) => (typeof d === 'string' ? d : d.why)

/** Why `label` with `args` is not safe to run unasked, or null when it is. */
export function programObjection(label: string, rule: ProgramRule, args: readonly string[]): string | null {
  const parsed = normalise(args, rule.table)
  const hit = rule.forbid ? findOption(parsed, Object.keys(rule.forbid)) : null
  if (hit) return `\`${label}\` with ${describeOption(hit.option, hit.name)} ${whyOf(rule.forbid![hit.name])}`
  if (rule.maxOperands !== undefined && parsed.operands.length > rule.maxOperands)
    return `\`${label}\` with ${parsed.operands.length} operands may change things`
  if (rule.projectOnly) {
    const outside = [...parsed.operands, ...parsed.options.map((o) => o.value ?? '')].find((v) =>
      leavesProject(v.replace(/^[\w.-]+=/, '')),
    )
    if (outside !== undefined) return `\`${label}\` would run or read \`${outside}\`, outside the project`
  }
  return rule.check?.(parsed) ?? null
}

/**
 * Every effect `args` use: each forbidden option with an effect (an ambiguous prefix
 * counts as each option it could be), then what the rule finds inside its operands.
 */
export function programEffects(rule: ProgramRule, args: readonly string[]): UsedEffect[] {
  const parsed = normalise(args, rule.table)
  const out: UsedEffect[] = []
  for (const option of parsed.options)
    for (const name of option.names) {
      const danger = rule.forbid?.[name]
      if (danger === undefined || typeof danger === 'string' || !danger.effect) continue
      out.push({ raw: option.raw, effect: danger.effect, value: option.value })
    }
  return [...out, ...(rule.inner?.(parsed) ?? [])]
}

/** True when the rule restricts anything, so arguments unknown until run time (`xargs`, `$X`) must ask. */
export function isRestricted(rule: ProgramRule): boolean {
  return (
    rule.forbid !== undefined ||
    rule.maxOperands !== undefined ||
    rule.check !== undefined ||
    rule.projectOnly === true
  )
}
