import { leavesProject } from '../argv'
import { describeOption, findOption, normalise, type Normalised, type OptionTable } from '../options'

/*
 * What an allowlisted program may be given and still run unasked. A program that
 * only reads can often be told to run another program or to write a file (`rg
 * --pre`, `sort -o`, `git log --output`): those options are listed here, per
 * program, and read through the option normaliser so no spelling slips past.
 */

/** What the commonest forbidden options do, in the words every program's rule uses. */
export const RUNS = 'runs another program'
export const WRITES = 'writes to a file'

export interface ProgramRule {
  /** The options the program knows, so abbreviations and values read as it reads them. */
  table: OptionTable
  /** Options that run code or write files, with what they do ("runs a program on every file"). */
  forbid?: Readonly<Record<string, string>>
  /** Most operands that still only read (`uniq in out` writes `out`). */
  maxOperands?: number
  /**
   * Runs the code it is pointed at (test runners, linters with JS configs): an
   * operand or option value outside the project (`/tmp/x.test.ts`, `--config ../x`) asks.
   */
  projectOnly?: boolean
  /** Anything else that makes this use unsafe, as a reason; null when it is fine. */
  check?(parsed: Normalised): string | null
}

/** Why `label` with `args` is not safe to run unasked, or null when it is. */
export function programObjection(label: string, rule: ProgramRule, args: readonly string[]): string | null {
  const parsed = normalise(args, rule.table)
  const hit = rule.forbid ? findOption(parsed, Object.keys(rule.forbid)) : null
  if (hit) return `\`${label}\` with ${describeOption(hit.option, hit.name)} ${rule.forbid![hit.name]}`
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

/** True when the rule restricts anything, so arguments unknown until run time (`xargs`, `$X`) must ask. */
export function isRestricted(rule: ProgramRule): boolean {
  return (
    rule.forbid !== undefined ||
    rule.maxOperands !== undefined ||
    rule.check !== undefined ||
    rule.projectOnly === true
  )
}
