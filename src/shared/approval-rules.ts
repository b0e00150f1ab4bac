import type { ApprovalRule, ApprovalSubject, CommandPart, RulePattern, SubjectOf } from './protocol/approval'

/*
 * "Always allow" rules (docs/architecture.md#always-allow): what a rule covers, which rule an
 * approval offers, and how a rule reads to the user. Pure, so the core decides with it and the app
 * and the CLI describe rules with the same words.
 */

/** Package managers whose `run X` names the script: the rule keeps the script's name. */
const SCRIPT_RUNNERS = new Set(['npm', 'pnpm', 'yarn', 'bun'])
const RUN_WORDS = new Set(['run', 'run-script', 'exec'])
/** A subcommand: a plain word, not an option, a path or a file name. */
const SUBCOMMAND = /^[a-z][a-z0-9_:-]*$/i

function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= words.length && prefix.every((w, i) => words[i] === w)
}

/** Whether one simple command's words match a command pattern. */
export function wordsMatch(
  pattern: Extract<RulePattern, { kind: 'command' }>,
  words: readonly string[],
): boolean {
  return pattern.exact
    ? words.length === pattern.words.length && startsWith(words, pattern.words)
    : startsWith(words, pattern.words)
}

/**
 * Whether `rules` cover a subject: a command line whose every part is allowed by the policy or
 * starts with a rule's words, or an MCP call of a tool a rule names. Never a file change or a
 * conflict, and never a line whose words are not all known before it runs.
 */
export function rulesCover<R extends Pick<ApprovalRule, 'pattern'>>(
  rules: readonly R[],
  subject: ApprovalSubject,
): R | undefined {
  if (subject.kind === 'mcp')
    return rules.find(
      ({ pattern: p }) => p.kind === 'mcp' && p.server === subject.server && p.tool === subject.tool,
    )
  if (subject.kind !== 'command' || !subject.parts || subject.parts.length === 0) return undefined
  let used: R | undefined
  for (const part of subject.parts) {
    if (part.allowed) continue
    const rule = rules.find(({ pattern: p }) => p.kind === 'command' && wordsMatch(p, part.words))
    if (!rule) return undefined
    used ??= rule
  }
  return used
}

/** The pattern "always allow" saves for one simple command: its program and subcommand. */
export function patternForWords(words: readonly string[]): Extract<RulePattern, { kind: 'command' }> {
  const [program, sub, script] = words
  if (sub === undefined) return { kind: 'command', words: [program], exact: true }
  if (!SUBCOMMAND.test(sub)) return { kind: 'command', words: [...words], exact: true }
  if (SCRIPT_RUNNERS.has(program) && RUN_WORDS.has(sub) && script !== undefined)
    return SUBCOMMAND.test(script)
      ? { kind: 'command', words: [program, sub, script], exact: false }
      : { kind: 'command', words: [...words], exact: true }
  return { kind: 'command', words: [program, sub], exact: false }
}

/**
 * The rule an approval offers, or undefined when it offers none: never for a denied or an
 * unconfined command, a line with unknown words, or one with more than one part to cover.
 */
export function offeredRule(subject: ApprovalSubject): RulePattern | undefined {
  if (subject.kind === 'mcp') return { kind: 'mcp', server: subject.server, tool: subject.tool }
  if (subject.kind !== 'command') return undefined
  return offeredCommandRule(subject)
}

function offeredCommandRule(subject: SubjectOf<'command'>): RulePattern | undefined {
  if (subject.verdict === 'deny' || subject.unconfined || !subject.parts) return undefined
  const asking: CommandPart[] = subject.parts.filter((p) => !p.allowed)
  const patterns = asking.map((p) => patternForWords(p.words))
  const keys = new Set(patterns.map((p) => JSON.stringify(p)))
  return keys.size === 1 ? patterns[0] : undefined
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}

/** The rule as a command line prefix or a tool name: `npm test …`, `mcp: github/create_issue`. */
export function ruleLabel(pattern: RulePattern): string {
  if (pattern.kind === 'mcp') return `mcp: ${pattern.server}/${pattern.tool}`
  const line = pattern.words.map(quote).join(' ')
  return pattern.exact ? line : `${line} …`
}

/** What the rule will match, in a sentence: the preview shown before saving and in the lists. */
export function describeRule(pattern: RulePattern): string {
  if (pattern.kind === 'mcp')
    return `Runs the MCP tool ${pattern.tool} of server ${pattern.server} without asking, whatever its arguments.`
  const line = pattern.words.map(quote).join(' ')
  if (pattern.exact)
    return `Runs exactly \`${line}\` without asking (no other arguments). Denied commands are still refused.`
  return `Runs \`${line}\` with any further arguments without asking (e.g. \`${line} --help\`), also inside pipelines and && chains whose other parts are allowed. Not a different program or subcommand; denied commands are still refused.`
}
