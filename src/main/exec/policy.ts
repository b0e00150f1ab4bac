import type { Parser } from 'web-tree-sitter'
import { commandName, matchesLoosely, parsePattern, type Pattern } from './argv'
import { loadShellParser, parseShell, type SimpleCommand } from './parse'
import {
  ALLOW_RULES,
  DENY_RULES,
  DOWNLOADERS,
  INTERPRETERS,
  allowRuleObjection,
  findAllowRule,
  isBlockDevice,
  type AllowRule,
} from './rules'
import { unwrap } from './unwrap'

/*
 * The verdict on a command line (DESIGN §4): every simple command in it — through
 * pipelines, lists, subshells, substitutions, wrappers and `bash -c` scripts — is
 * checked. One denied part denies the line; one part off the allowlist makes it
 * ask; only a line whose every part is allowed runs unasked.
 */

export type Verdict = 'allow' | 'ask' | 'deny'

export interface PartVerdict {
  /** The simple command (or redirect, pipeline) as written. */
  part: string
  verdict: Verdict
  reason?: string
}

export interface CommandVerdict {
  verdict: Verdict
  /** Names the part and the rule: "`rm -rf build` in `make && rm -rf build` is on the deny list (rm -rf: …)". */
  reason?: string
  parts: PartVerdict[]
}

/** The user's additions to the built-in lists (CommandSettings.allow / .deny). */
export interface PolicyLists {
  allow?: readonly string[]
  deny?: readonly string[]
}

export async function checkCommand(line: string, lists: PolicyLists = {}): Promise<CommandVerdict> {
  return new Checker(await loadShellParser(), line, lists).run()
}

/** Deepest `bash -c "bash -c '…'"` nesting read; deeper asks. */
const MAX_DEPTH = 4

const RISKY_VARIABLE =
  /^(PATH|LD_\w+|DYLD_\w+|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PROMPT_COMMAND|IFS|PS4|NODE_OPTIONS|NODE_PATH|PYTHONSTARTUP|PYTHONPATH|PYTHONHOME|PERL5OPT|PERL5LIB|RUBYOPT|RUBYLIB|GIT_\w+|\w*PAGER|EDITOR|VISUAL|SHELL|HOME|GCONV_PATH|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|MAVEN_OPTS|RUSTC_WRAPPER|RUSTC|RUSTFLAGS|CARGO_\w+|GOFLAGS|NPM_CONFIG_\w+)$/i

const HARMLESS_TARGET = /^(\/dev\/(null|stdout|stderr|tty|fd\/\d+)|&?\d+|-)$/
const WRITE_OPERATORS = new Set(['>', '>>', '&>', '&>>', '>|', '<>', '>&'])

class Checker {
  private readonly parts: PartVerdict[] = []
  private readonly userAllow: AllowRule[]
  private readonly userDeny: Pattern[]

  constructor(
    private readonly parser: Parser,
    private readonly top: string,
    lists: PolicyLists,
  ) {
    this.userAllow = (lists.allow ?? []).map((text) => ({ pattern: parsePattern(text) }))
    this.userDeny = (lists.deny ?? []).map(parsePattern).filter((p) => p.words.length > 0)
  }

  run(): CommandVerdict {
    if (this.top.trim() === '') return { verdict: 'ask', reason: 'the command line is empty', parts: [] }
    this.checkLine(this.top, 0)
    const denied = this.parts.filter((p) => p.verdict === 'deny')
    const asked = this.parts.filter((p) => p.verdict === 'ask')
    if (denied.length > 0) return { verdict: 'deny', reason: denied[0].reason, parts: this.parts }
    if (asked.length > 0) {
      const reasons = [...new Set(asked.map((p) => p.reason))]
      const more = reasons.length > 3 ? ` (and ${reasons.length - 3} more)` : ''
      return { verdict: 'ask', reason: reasons.slice(0, 3).join('; ') + more, parts: this.parts }
    }
    return { verdict: 'allow', parts: this.parts }
  }

  private where(source: string): string {
    const part = `\`${short(source)}\``
    return source.trim() === this.top.trim() ? part : `${part} in \`${short(this.top)}\``
  }

  private add(source: string, verdict: Verdict, explain?: (where: string) => string): void {
    this.parts.push({ part: source, verdict, reason: explain?.(this.where(source)) })
  }

  private checkLine(text: string, depth: number): void {
    const line = parseShell(this.parser, text)
    if (line.syntaxError)
      this.add(text, 'ask', (w) => `${w} could not be read as a shell command: ${line.syntaxError}`)
    for (const fn of line.functions) {
      if (fn.calls.includes(fn.name))
        this.add(
          fn.source,
          'deny',
          (w) => `${w} is on the deny list (fork bomb: a function that calls itself)`,
        )
    }
    for (const stages of line.pipelines) {
      const from = stages.findIndex((s) => DOWNLOADERS.has(nameOf(s)))
      if (from >= 0 && stages.slice(from + 1).some((s) => INTERPRETERS.has(nameOf(s)))) {
        const source = stages.map((s) => s.source).join(' | ')
        this.add(source, 'deny', (w) => `${w} is on the deny list (curl | sh: runs downloaded code)`)
      }
    }
    for (const command of line.commands) this.checkCommand(command, depth)
    for (const r of line.redirects) {
      if (!WRITE_OPERATORS.has(r.operator)) continue
      if (r.target.dynamic) this.add(r.source, 'ask', (w) => `${w} writes to a file only known at run time`)
      else if (isBlockDevice(r.target.value))
        this.add(r.source, 'deny', (w) => `${w} is on the deny list (write to a disk device)`)
      else if (!HARMLESS_TARGET.test(r.target.value))
        this.add(r.source, 'ask', (w) => `${w} writes to ${r.target.value}`)
    }
    for (const a of line.assignments) {
      if (RISKY_VARIABLE.test(a.name))
        this.add(a.source, 'ask', (w) => `${w} sets ${a.name}, which changes what later commands run`)
    }
  }

  private checkCommand(command: SimpleCommand, depth: number): void {
    const source = command.source
    if (command.argv.length === 0) return
    const original = command.argv.map((w) => w.value)
    if (this.denied(source, original)) return
    if (command.argv[0].dynamic) {
      this.add(source, 'ask', (w) => `${w}: the command name is only known at run time`)
      return
    }
    const unwrapped = unwrap(command.argv)
    const name = commandName(unwrapped.argv[0]?.value ?? '')
    const runsCode = INTERPRETERS.has(name) || unwrapped.script !== undefined
    if (runsCode && downloads(command)) {
      this.add(source, 'deny', (w) => `${w} is on the deny list (curl | sh: runs downloaded code)`)
      return
    }
    if (unwrapped.script) {
      const script = unwrapped.script
      const via = unwrapped.wrappers.at(-1)
      if (script.dynamic)
        this.add(source, 'ask', (w) => `${w}: the script ${via} runs is only known at run time`)
      else if (depth >= MAX_DEPTH) this.add(source, 'ask', (w) => `${w} nests shells too deeply to check`)
      else this.checkLine(script.value, depth + 1)
      return
    }
    const argv = unwrapped.argv.map((w) => w.value)
    if (unwrapped.wrappers.length > 0 && this.denied(source, argv)) return
    if (name === 'find' && this.findExecDenied(source, argv)) return
    const risky = [...command.assignments.map((a) => a.name), ...unwrapped.assignments].find((n) =>
      RISKY_VARIABLE.test(n),
    )
    if (risky) {
      this.add(source, 'ask', (w) => `${w} sets ${risky}, which changes what the command runs`)
      return
    }
    if (argv.length === 0) {
      this.add(source, 'allow')
      return
    }
    const match = findAllowRule(argv, ALLOW_RULES) ?? findAllowRule(argv, this.userAllow)
    if (!match) {
      this.add(source, 'ask', (w) => `${w} is not on the allowlist`)
      return
    }
    const restricted =
      match.rule.forbid !== undefined || match.rule.maxArgs !== undefined || match.rule.exact === true
    const unknownArgs = unwrapped.extraArgs || unwrapped.argv.some((w) => w.dynamic)
    const objection = allowRuleObjection(match.rule, match.rest)
    if (objection) this.add(source, 'ask', (w) => `${w}: ${objection}`)
    else if (restricted && unknownArgs)
      this.add(source, 'ask', (w) => `${w}: its arguments are only known at run time`)
    else this.add(source, 'allow')
  }

  /** Adds a deny part when a built-in or user deny rule matches the argv. */
  private denied(source: string, argv: readonly string[]): boolean {
    const builtin = DENY_RULES.find((r) => r.matches(argv))
    if (builtin) {
      this.add(source, 'deny', (w) => `${w} is on the deny list (${builtin.name}: ${builtin.why})`)
      return true
    }
    const user = this.userDeny.find((p) => matchesLoosely(argv, p))
    if (user) {
      this.add(source, 'deny', (w) => `${w} is on your deny list ("${user.text}")`)
      return true
    }
    return false
  }

  /** `find … -exec rm -rf {} ;` runs `rm -rf` once per file. */
  private findExecDenied(source: string, argv: readonly string[]): boolean {
    for (let i = 1; i < argv.length; i++) {
      if (!['-exec', '-execdir', '-ok', '-okdir'].includes(argv[i])) continue
      const end = argv.findIndex((a, j) => j > i && (a === ';' || a === '+'))
      const inner = argv.slice(i + 1, end < 0 ? argv.length : end)
      if (inner.length > 0 && this.denied(source, inner)) return true
    }
    return false
  }
}

function nameOf(command: SimpleCommand): string {
  const argv = unwrap(command.argv).argv
  return argv[0] && !argv[0].dynamic ? commandName(argv[0].value) : ''
}

/** A downloader anywhere inside the command's substitutions (`bash <(curl …)`, `sh -c "$(wget …)"`). */
function downloads(command: SimpleCommand): boolean {
  return command.nested.some((n) => DOWNLOADERS.has(nameOf(n)) || downloads(n))
}

function short(text: string): string {
  const one = text.trim().replace(/\s*\n\s*/g, ' ⏎ ')
  return one.length > 120 ? `${one.slice(0, 117)}…` : one
}
