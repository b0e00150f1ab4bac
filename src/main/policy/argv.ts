import path from 'node:path'
import { pushAll } from '../../shared/arrays'

/*
 * Reading an argv the way the tools themselves do: which tokens are flags, which
 * short flags a cluster such as `-fdx` holds, and which global options (before a
 * subcommand) take a value, so `git -C dir push` is still `git push`.
 */

export function isFlag(token: string): boolean {
  return token.length > 1 && token.startsWith('-')
}

/** `/usr/bin/rm` → `rm`: deny rules look through paths; allow rules never do. */
export function commandName(token: string): string {
  return path.posix.basename(token)
}

/**
 * Every flag in the argv: `-fdx` gives `-f`, `-d`, `-x` (and itself); `--force=yes`
 * gives `--force`. Stops at `--`, after which everything is an operand.
 */
export function flagsOf(args: readonly string[]): Set<string> {
  const flags = new Set<string>()
  for (const arg of args) {
    if (arg === '--') break
    if (!isFlag(arg)) continue
    if (arg.startsWith('--')) {
      flags.add(arg.split('=')[0])
      continue
    }
    flags.add(arg)
    for (const letter of arg.slice(1)) if (/[A-Za-z0-9]/.test(letter)) flags.add(`-${letter}`)
  }
  return flags
}

/** Global options that take a separate value, per tool (the value is not a subcommand). */
const VALUE_OPTIONS: Record<string, readonly string[]> = {
  git: ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--exec-path'],
  npm: ['--prefix', '-w', '--workspace', '--userconfig', '--registry', '--loglevel'],
  pnpm: ['-C', '--dir', '--filter', '-F', '-w', '--workspace-dir'],
  yarn: ['--cwd'],
  docker: ['-H', '--host', '--context', '-c', '--config', '--log-level', '-l'],
  kubectl: ['-n', '--namespace', '--context', '--kubeconfig', '-s', '--server'],
  make: ['-C', '--directory', '-f', '--file', '--makefile', '-j', '-I', '-o', '-W'],
  mvn: ['-f', '--file', '-s', '--settings', '-P', '-pl', '-T', '-D'],
  cargo: ['--manifest-path', '-Z', '--config', '-C'],
  terraform: [],
}

/**
 * The operands of an argv (name excluded), skipping flags and the values of the
 * tool's value-taking options: `git -C x push -f origin` → `push origin`.
 */
export function positionals(argv: readonly string[]): string[] {
  const valueOptions = VALUE_OPTIONS[commandName(argv[0] ?? '')] ?? []
  const out: string[] = []
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--') {
      pushAll(out, argv.slice(i + 1))
      break
    }
    if (isFlag(arg)) {
      if (valueOptions.includes(arg) && out.length === 0) i++
      continue
    }
    out.push(arg)
  }
  return out
}

/** An operand that leaves the project folder (`/abs`, `~/x`, `../x`). */
export function leavesProject(value: string): boolean {
  return /^[/~]/.test(value) || /(^|\/)\.\.(\/|$)/.test(value)
}

/** A user pattern such as `"git push --force"` → its words (`git`, `push`) and its flags (`--force`). */
export interface Pattern {
  text: string
  tokens: string[]
  words: string[]
  flags: string[]
}

export function parsePattern(text: string): Pattern {
  const tokens = text.trim().split(/\s+/).filter(Boolean)
  return {
    text: tokens.join(' '),
    tokens,
    words: tokens.filter((t) => !isFlag(t)),
    flags: tokens.filter(isFlag),
  }
}

/**
 * Lenient match, for deny lists: the name (through any path), the pattern's words
 * as the leading operands, and its flags anywhere (`-f` is in `-fdx`).
 */
export function matchesLoosely(argv: readonly string[], pattern: Pattern): boolean {
  if (argv.length === 0 || pattern.words.length === 0) return false
  if (commandName(argv[0]) !== pattern.words[0]) return false
  const ops = positionals(argv)
  if (!pattern.words.slice(1).every((w, i) => ops[i] === w)) return false
  const flags = flagsOf(argv.slice(1))
  return pattern.flags.every((f) => flags.has(f))
}

/** Leading options that change nothing about what a command does, per tool (allow side). */
const HARMLESS_LEADING: Record<string, { flags: readonly string[]; withValue: readonly string[] }> = {
  git: { flags: ['--no-pager', '-P', '--no-optional-locks'], withValue: ['-C'] },
  npm: { flags: ['-s', '--silent', '-q', '--quiet'], withValue: [] },
  pnpm: { flags: ['-s', '--silent'], withValue: [] },
  yarn: { flags: ['-s', '--silent'], withValue: [] },
  mvn: {
    flags: [
      '-q',
      '--quiet',
      '-B',
      '--batch-mode',
      '-o',
      '--offline',
      '-e',
      '--errors',
      '--no-transfer-progress',
      '-ntp',
    ],
    withValue: [],
  },
  make: { flags: ['-s', '--silent', '-k', '--keep-going'], withValue: ['-C'] },
}

/**
 * Strict match, for allow lists: the exact name (no path: `/tmp/x/ls` is not
 * `ls`), harmless leading options skipped, then the pattern's words as the very
 * next tokens and its flags present. Returns the arguments after the match, or
 * null when it does not match.
 */
export function matchStrictly(argv: readonly string[], pattern: Pattern): string[] | null {
  if (argv.length === 0 || argv[0] !== pattern.words[0]) return null
  const harmless = HARMLESS_LEADING[argv[0]]
  let i = 1
  if (harmless && pattern.words.length > 1) {
    while (i < argv.length) {
      if (harmless.flags.includes(argv[i]) || (argv[0] === 'make' && /^-j\d*$/.test(argv[i]))) i++
      // `-C dir` is harmless inside the project; another folder brings its own config (git) or makefile.
      else if (harmless.withValue.includes(argv[i]) && !leavesProject(argv[i + 1] ?? '/')) i += 2
      else break
    }
  }
  // Tokens up to the last word match in order (`python -m pytest`); trailing flags may sit anywhere (`tsc -p x --noEmit`).
  let lastWord = 0
  pattern.tokens.forEach((t, k) => {
    if (!isFlag(t)) lastWord = k
  })
  for (const token of pattern.tokens.slice(1, lastWord + 1)) {
    if (argv[i] !== token) return null
    i++
  }
  const rest = argv.slice(i)
  const flags = flagsOf(rest)
  const trailing = pattern.tokens.slice(lastWord + 1)
  if (!trailing.every((f) => flags.has(f) || rest.some((r) => r.startsWith(`${f}=`)))) return null
  return rest
}
