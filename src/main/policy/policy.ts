import type { Parser } from 'web-tree-sitter'
import { commandName, parsePattern, type Pattern } from './argv'
import { loadShellParser, parseShell, type SimpleCommand, type Word } from './parse'
import { historyRefusal, pathExists, pathspecsAvoid, readsGitObjects, trackedSecrets } from './git-objects'
import { gitCall, isProgramSetting } from './programs/git'
import {
  ALLOW_RULES,
  DENY_RULES,
  DOWNLOADERS,
  INTERPRETERS,
  allowRuleObjection,
  findAllowRule,
  isBlockDevice,
  isRestrictedRule,
  matchesDenyPattern,
  openDenyRule,
  userAllowRule,
  type AllowRule,
} from './rules'
import { expandBraces, secretOperand, secretRefusal } from './secrets'
import { CODE_INTERPRETERS, STDIN_INTERPRETERS, readsProgramFromStdin } from './interpreters'
import { unwrap } from './unwrap'
import { handedOn } from './effects'
import { pushAll } from '../../shared/arrays'

/*
 * The verdict on a command line (docs/sandbox.md#commands): every simple command in it — through
 * pipelines, lists, subshells, substitutions, wrappers and `bash -c` scripts — is
 * checked. One denied part denies the line; one part off the allowlist makes it
 * ask; only a line whose every part is allowed runs unasked. A line whose program
 * cannot be known before it runs (`$X`, `eval`, `… | sh`) is denied: full-auto runs
 * what asks, so "ask" would let it through there.
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

/** Where the command would run: the project root, whose git repository the policy looks at. */
export interface PolicyContext {
  root?: string
}

export async function checkCommand(
  line: string,
  lists: PolicyLists = {},
  context: PolicyContext = {},
): Promise<CommandVerdict> {
  const checker = new Checker(await loadShellParser(), line, lists, context.root)
  const verdict = checker.run()
  if (verdict.verdict === 'deny' || !context.root || checker.historyReads.length === 0) return verdict
  // Only a git command that prints from the object store pays for the look at HEAD (cached per commit).
  const tracked = await trackedSecrets(context.root)
  const hit = tracked.length > 0 && checker.historyReads.find((h) => !pathspecsAvoid(h.args, tracked))
  if (!hit) return verdict
  const reason = `${checker.where(hit.source)}: ${historyRefusal(hit.why, tracked)}`
  return { verdict: 'deny', reason, parts: [...verdict.parts, { part: hit.source, verdict: 'deny', reason }] }
}

/** Deepest `bash -c "bash -c '…'"` nesting read; deeper asks. */
const MAX_DEPTH = 4

const RISKY_VARIABLE =
  /^(RIPGREP_CONFIG_PATH|LESSOPEN|LESSCLOSE|LESS|MANPAGER|MANOPT|TAR_OPTIONS|MAKEFLAGS|MFLAGS|MAKEFILES|PYTEST_ADDOPTS|PYTEST_PLUGINS|TERMINAL|BROWSER|PATH|LD_\w+|DYLD_\w+|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PROMPT_COMMAND|IFS|PS4|NODE_OPTIONS|NODE_PATH|PYTHONSTARTUP|PYTHONPATH|PYTHONHOME|PERL5OPT|PERL5LIB|RUBYOPT|RUBYLIB|GIT_\w+|\w*PAGER|EDITOR|VISUAL|SHELL|HOME|GCONV_PATH|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|MAVEN_OPTS|RUSTC_WRAPPER|RUSTC|RUSTFLAGS|CARGO_\w+|GOFLAGS|NPM_CONFIG_\w+)$/i

/** Variables whose value is a command line some program runs (`GIT_PAGER='…' git log`). */
const PROGRAM_VARIABLE =
  /^(PAGER|GIT_PAGER|MANPAGER|EDITOR|VISUAL|GIT_EDITOR|GIT_SEQUENCE_EDITOR|GIT_SSH_COMMAND|GIT_SSH|GIT_EXTERNAL_DIFF|GIT_ASKPASS|SSH_ASKPASS|LESSOPEN|LESSCLOSE|PROMPT_COMMAND|BROWSER|TERMINAL)$/

/** A quoted string in code, and a run of them separated by commas (`["rm", "-rf", "x"]`). */
const STRING_LITERAL = /(["'`])((?:\\.|(?!\1)[^\\\n])*)\1/g

/** The refusal for a line whose commands cannot be known until it runs. */
export const WRITE_PLAINLY =
  'write the command plainly: the program and its arguments literally, with no variable, substitution, eval, alias or script fed through a pipe'

/** Words bash sets to a number (`kill $!`), which can never be an option. */
const BASH_NUMBER = /^"?\$(!|\$|\?|#|\{?(PPID|BASHPID|RANDOM|LINENO|SECONDS)\}?)"?$/

const HARMLESS_TARGET = /^(\/dev\/(null|stdout|stderr|tty|fd\/\d+)|&?\d+|-)$/
const WRITE_OPERATORS = new Set(['>', '>>', '&>', '&>>', '>|', '<>', '>&'])

class Checker {
  private readonly parts: PartVerdict[] = []
  private readonly userAllow: AllowRule[]
  private readonly userDeny: Pattern[]
  /** git parts that print file content from the object store: refused when HEAD tracks a secret. */
  readonly historyReads: { source: string; why: string; args: string[] }[] = []

  constructor(
    private readonly parser: Parser,
    private readonly top: string,
    lists: PolicyLists,
    private readonly root?: string,
  ) {
    this.userAllow = (lists.allow ?? []).map(userAllowRule)
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

  where(source: string): string {
    const part = `\`${short(source)}\``
    return source.trim() === this.top.trim() ? part : `${part} in \`${short(this.top)}\``
  }

  private add(source: string, verdict: Verdict, explain?: (where: string) => string): void {
    this.parts.push({ part: source, verdict, reason: explain?.(this.where(source)) })
  }

  private checkLine(text: string, depth: number): void {
    const line = parseShell(this.parser, text)
    if (line.syntaxError)
      this.add(
        text,
        'deny',
        (w) => `${w} could not be read as a shell command: ${line.syntaxError}; ${WRITE_PLAINLY}`,
      )
    const again = line.reevaluated
    if (again?.verdict === 'deny') this.refuse(text, again.why)
    else if (again) this.add(text, 'ask', (w) => `${w}: ${again.why}`)
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
      // `cat < ~/.ssh/id_rsa`, `exec 3< .env`, `… done < ~/.aws/credentials` read the file as an operand would.
      const secret = r.operator.includes('<') ? secretOperand(['cat', r.target], this.root) : null
      if (secret) this.add(r.source, 'deny', (w) => secretRefusal(w, secret))
      if (WRITE_OPERATORS.has(r.operator)) this.checkWrite(r.source, r.target)
    }
    for (const a of line.assignments) this.checkAssignment(a, depth)
  }

  /** A file a part writes (`> out`, `sort -o out`, `find -fprint out`): the same rules for each. */
  private checkWrite(source: string, target: Word): void {
    const secret = target.dynamic ? null : secretOperand(['cat', target], this.root)
    if (target.dynamic) this.add(source, 'ask', (w) => `${w} writes to a file only known at run time`)
    else if (isBlockDevice(target.value))
      this.add(source, 'deny', (w) => `${w} is on the deny list (write to a disk device)`)
    else if (secret)
      this.add(
        source,
        'deny',
        (w) =>
          `${w} writes to \`${target.value}\`, a secrets file (${secret.pattern}); commands never change one`,
      )
    else if (!HARMLESS_TARGET.test(target.value))
      this.add(source, 'ask', (w) => `${w} writes to ${target.value}`)
  }

  /**
   * What an option hands on (`rg --pre PROG`, `make --eval=CODE`, `sort -o FILE`, `find
   * -exec CMD ;`): its command lines decided like any other, its files like a redirect's.
   */
  private checkHandedOn(source: string, words: readonly Word[], depth: number): void {
    for (const item of handedOn(words)) {
      if (item.kind === 'write') this.checkWrite(source, item.target)
      else if (item.kind === 'unknown') this.refuse(source, item.why)
      else if (depth >= MAX_DEPTH) this.add(source, 'ask', (w) => `${w} nests commands too deeply to check`)
      else {
        // The option itself asks; of what it runs, only a refusal is worth saying.
        const before = this.parts.length
        for (const line of item.lines) this.checkLine(line, depth + 1)
        const refused = this.parts.splice(before).filter((p) => p.verdict === 'deny')
        pushAll(this.parts, refused)
      }
    }
  }

  /**
   * A command given words only known at run time (`rm "$f"`, `xargs rm`, `rg --pre rm`):
   * refused when those words could make it a deny-listed command.
   */
  private openDenied(source: string, words: readonly Word[], appended: boolean): boolean {
    const holes = new Set(words.flatMap((w, i) => (w.dynamic && !BASH_NUMBER.test(w.value) ? [i] : [])))
    if (holes.size === 0 && !appended) return false
    const rule = openDenyRule(
      words.map((w) => w.value),
      holes,
      appended,
      this.userDeny,
    )
    if (!rule) return false
    const from = appended ? 'the words it is given when it runs' : 'its words only known at run time'
    this.add(
      source,
      'deny',
      (w) =>
        `${w}: ${from} could make it \`${rule}\`, which is on the deny list; write them out, or put \`--\` before them`,
    )
    return true
  }

  /** `PATH=…` asks; `GIT_PAGER='rm -rf ~'` has its command line checked too. */
  private checkAssignment(a: { name: string; source: string }, depth: number): boolean {
    if (!RISKY_VARIABLE.test(a.name) && !PROGRAM_VARIABLE.test(a.name)) return false
    this.add(a.source, 'ask', (w) => `${w} sets ${a.name}, which changes what commands run`)
    if (PROGRAM_VARIABLE.test(a.name)) {
      const value = a.source.slice(a.source.indexOf('=') + 1).replace(/^(['"])(.*)\1$/s, '$2')
      if (/[$`]/.test(value)) this.refuse(a.source, `${a.name} is set to a command only known at run time`)
      else if (depth < MAX_DEPTH) this.checkLine(value.replace(/^\|+/, ''), depth + 1)
    }
    return true
  }

  /** A part that cannot be known before it runs: refused, with how to write it instead. */
  private refuse(source: string, why: string): void {
    this.add(source, 'deny', (w) => `${w}: ${why}; ${WRITE_PLAINLY}`)
  }

  private checkCommand(command: SimpleCommand, depth: number): void {
    const source = command.source
    if (command.argv.length === 0) return
    if (this.denied(source, expandBraces(command.argv.map((w) => w.value)))) return
    const unwrapped = unwrap(command.argv)
    if (unwrapped.unresolvable) return this.refuse(source, unwrapped.unresolvable)
    const name = commandName(unwrapped.argv[0]?.value ?? '')
    const runsCode = INTERPRETERS.has(name) || unwrapped.script !== undefined
    if (runsCode && downloads(command)) {
      this.add(source, 'deny', (w) => `${w} is on the deny list (curl | sh: runs downloaded code)`)
      return
    }
    if (unwrapped.script) {
      // `BASH_ENV=./x.sh bash -c true`, `PATH=./bin:$PATH sh -c ls`: the variable changes what the script runs.
      for (const a of command.assignments) this.checkAssignment(a, depth)
      const setter = unwrapped.assignments.find((n) => RISKY_VARIABLE.test(n) || PROGRAM_VARIABLE.test(n))
      if (setter) this.add(source, 'ask', (w) => `${w} sets ${setter}, which changes what the command runs`)
      if (depth >= MAX_DEPTH) this.add(source, 'ask', (w) => `${w} nests shells too deeply to check`)
      else this.checkLine(unwrapped.script.value, depth + 1)
      return
    }
    const argv = unwrapped.argv.map((w) => w.value)
    if (command.stdin === 'pipe' && STDIN_INTERPRETERS.has(name) && readsProgramFromStdin(argv))
      return this.refuse(source, `\`${name}\` runs a program fed to it through a pipe`)
    if (unwrapped.wrappers.length > 0 && this.denied(source, expandBraces(argv))) return
    if (CODE_INTERPRETERS.has(name) && this.codeDenied(source, [...argv.slice(1), command.stdinText ?? '']))
      return
    if (name === 'git' && this.gitConfigChecked(source, argv, depth)) return
    if (this.openDenied(source, unwrapped.argv, unwrapped.extraArgs)) return
    this.checkHandedOn(source, unwrapped.argv, depth)
    const secret = secretOperand(unwrapped.argv, this.root)
    if (secret) return this.add(source, 'deny', (w) => secretRefusal(w, secret))
    const git = this.root ? gitCall(argv) : null
    if (git) {
      const why = readsGitObjects(git, pathExists(this.root!))
      if (why) this.historyReads.push({ source, why, args: git.args })
    }
    for (const a of command.assignments) if (this.checkAssignment(a, depth)) return
    const risky = unwrapped.assignments.find((n) => RISKY_VARIABLE.test(n) || PROGRAM_VARIABLE.test(n))
    if (risky) {
      this.add(source, 'ask', (w) => `${w} sets ${risky}, which changes what the command runs`)
      return
    }
    if (unwrapped.asks) {
      this.add(source, 'ask', (w) => `${w}: ${unwrapped.asks}`)
      return
    }
    if (argv.length === 0) {
      this.add(source, 'allow')
      return
    }
    const match = findAllowRule(argv, ALLOW_RULES) ?? findAllowRule(argv, this.userAllow)
    if (!match) {
      if (unwrapped.opaque) this.scanOperands(source, unwrapped.argv, depth)
      this.add(source, 'ask', (w) => `${w} is not on the allowlist`)
      return
    }
    const unknownArgs = unwrapped.extraArgs || unwrapped.argv.some((w) => w.dynamic)
    const objection = allowRuleObjection(match.rule, match.rest)
    if (objection) this.add(source, 'ask', (w) => `${w}: ${objection}`)
    else if (isRestrictedRule(match.rule) && unknownArgs)
      this.add(source, 'ask', (w) => `${w}: its arguments are only known at run time`)
    else this.add(source, 'allow')
  }

  /**
   * `python3 -c 'os.system("rm -rf ~")'`, `awk 'BEGIN{system("git push")}'`: the string
   * literals of inline code that read as a deny-listed command deny the part. A
   * heuristic (code can build any string), so the part still asks when none does.
   */
  private codeDenied(source: string, code: readonly string[]): boolean {
    for (const text of code) {
      const literals = [...text.matchAll(STRING_LITERAL)].map((m) => ({
        at: m.index,
        end: m.index + m[0].length,
        value: m[2],
      }))
      const lines = literals.map((l) => l.value)
      // Consecutive literals in a list read as one argv.
      let run: string[] = []
      literals.forEach((l, k) => {
        const joined = k > 0 && /^\s*,\s*$/.test(text.slice(literals[k - 1].end, l.at))
        run = joined ? [...run, l.value] : [l.value]
        if (run.length > 1) lines.push(run.map((w) => (/\s/.test(w) ? `'${w}'` : w)).join(' '))
      })
      for (const line of lines) {
        if (!/\S\s+\S/.test(line) && !/^(sudo|reboot|shutdown|halt|poweroff)$/.test(line.trim())) continue
        for (const command of parseShell(this.parser, line).commands) {
          const inner = unwrap(command.argv)
          const argv = (inner.argv.length > 0 ? inner.argv : command.argv).map((w) => w.value)
          if (this.denied(source, expandBraces(argv))) return true
          if (inner.script && !inner.script.dynamic && this.codeDenied(source, [`'${inner.script.value}'`]))
            return true
        }
      }
    }
    return false
  }

  /** `strace -f rm -rf x`, `npx foo sh -c '…'`: every tail of the operands that is a command is checked for the deny list. */
  private scanOperands(source: string, words: readonly Word[], depth: number): void {
    for (let i = 1; i < words.length; i++) {
      if (words[i].dynamic || words[i].value.startsWith('-')) continue
      const tail = words.slice(i)
      if (
        this.denied(
          source,
          tail.map((w) => w.value),
        )
      )
        return
      const inner = unwrap(tail)
      if (inner.script && !inner.script.dynamic && depth < MAX_DEPTH)
        return this.checkLine(inner.script.value, depth + 1)
      // `npx rg --pre rm x`, `strace xargs rm`: what the tail hands on, as for the command itself.
      if (inner.argv.length > 0 && !inner.unresolvable) {
        if (this.openDenied(source, inner.argv, inner.extraArgs)) return
        const before = this.parts.length
        this.checkHandedOn(source, inner.argv, depth)
        if (this.parts.slice(before).some((p) => p.verdict === 'deny')) return
      }
    }
  }

  /** `git -c core.pager='…'`, `-c alias.x='!…'`: a setting that is a command line is checked as one. */
  private gitConfigChecked(source: string, argv: readonly string[], depth: number): boolean {
    const call = gitCall(argv)
    if (!call) return false
    const exec = call.globals.find((g) => g.startsWith('--exec-path='))
    if (exec) {
      this.refuse(source, '`git --exec-path=…` runs git’s programs from another folder')
      return true
    }
    for (const setting of call.config) {
      if (!isProgramSetting(setting.key)) continue
      if (setting.key.startsWith('alias.') || setting.key.startsWith('include')) {
        this.refuse(source, `\`git -c ${setting.key}\` hides what git runs`)
        return true
      }
      if (setting.fromEnv || setting.value === undefined) {
        this.refuse(source, `\`git\` takes the command for ${setting.key} from the environment`)
        return true
      }
      if (depth < MAX_DEPTH) this.checkLine(setting.value.replace(/^!/, ''), depth + 1)
    }
    return false
  }

  /** Adds a deny part when a built-in or user deny rule matches the argv. */
  private denied(source: string, argv: readonly string[]): boolean {
    const builtin = DENY_RULES.find((r) => r.matches(argv))
    if (builtin) {
      this.add(source, 'deny', (w) => `${w} is on the deny list (${builtin.name}: ${builtin.why})`)
      return true
    }
    const user = this.userDeny.find((p) => matchesDenyPattern(argv, p))
    if (user) {
      this.add(source, 'deny', (w) => `${w} is on your deny list ("${user.text}")`)
      return true
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
