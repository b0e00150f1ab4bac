import {
  commandName,
  flagsOf,
  matchesLoosely,
  matchStrictly,
  parsePattern,
  positionals,
  type Pattern,
} from './argv'
import { NO_OPTIONS, optionNames } from './options'
import {
  CARGO,
  ESLINT,
  GO,
  JEST,
  MAKE,
  MAVEN,
  PACKAGE_SCRIPT,
  PRETTIER,
  PYTEST,
  RUFF,
  SCRIPT_ARGS,
  TSC,
  VITEST,
} from './programs/build'
import { TAR, USER_ALLOWED_RULES, tarArgs } from './programs/other'
import { GIT_SUBCOMMANDS, GIT_TABLES, gitCall } from './programs/git'
import { DATE, FILE, FIND, HOSTNAME, PRINTF, RG, RM, SED, SORT, TREE, UNIQ } from './programs/text'
import { optionTableOf } from './programs/registry'
import { isRestricted, programObjection, type ProgramRule } from './programs/types'

/*
 * The built-in lists, in the spirit of the ipuaro seed: read-only and
 * project-local commands run; destructive, privileged, publishing and
 * remote-code commands are refused; everything else asks.
 */

export interface DenyRule {
  /** How the rule reads in messages and docs (`rm -rf`, `git push`). */
  name: string
  why: string
  matches(argv: readonly string[]): boolean
  /**
   * Words that, given to a command of the rule's program, make it match (`-rf` for
   * `rm`, `push` for `git`): a command whose arguments are only known at run time
   * (`xargs rm`, `rm "$f"`, `rg --pre rm`) is refused when they could.
   */
  completions?: readonly (readonly string[])[]
}

const named =
  (...names: string[]) =>
  (argv: readonly string[]) =>
    names.includes(commandName(argv[0] ?? ''))

const sub =
  (tool: string, ...subcommands: string[]) =>
  (argv: readonly string[]) =>
    commandName(argv[0] ?? '') === tool && subcommands.includes(positionals(argv)[0] ?? '')

const BLOCK_DEVICE = /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk|md|dm-|loop|sr)/

export function isBlockDevice(target: string): boolean {
  return BLOCK_DEVICE.test(target)
}

const has = (argv: readonly string[], ...anyOf: string[]) => {
  const flags = flagsOf(argv.slice(1))
  return anyOf.some((f) => flags.has(f))
}

/** Whether a git call is `git SUB` using any of `names` (abbreviations read per subcommand). */
const gitWith = (argv: readonly string[], subcommand: string, ...names: string[]) => {
  const call = gitCall(argv)
  if (call?.subcommand !== subcommand) return false
  if (names.length === 0) return true
  const used = optionNames(call.args, GIT_TABLES[subcommand] ?? NO_OPTIONS)
  return names.some((n) => used.has(n))
}

/** npm takes any unique prefix of a command (`npm publ`); `npm un` is uninstall's alias. */
const npmCommand = (word: string, full: string) =>
  word === full || (word.length >= 2 && word !== 'un' && full.startsWith(word))

export const DENY_RULES: readonly DenyRule[] = [
  {
    name: 'rm -rf',
    why: 'recursive forced delete',
    completions: [['-rf']],
    matches: (a) => {
      if (!named('rm')(a)) return false
      const used = optionNames(a.slice(1), RM)
      return (
        ['-r', '-R', '--recursive'].some((f) => used.has(f)) && ['-f', '--force'].some((f) => used.has(f))
      )
    },
  },
  { name: 'sudo', why: 'runs as another user', matches: named('sudo', 'su', 'doas', 'pkexec', 'runuser') },
  {
    name: 'git push',
    why: 'nothing ever pushes',
    matches: (a) => gitWith(a, 'push'),
    completions: [['push']],
  },
  {
    name: 'git reset --hard',
    why: 'discards uncommitted work',
    completions: [['reset', '--hard'], ['--hard']],
    matches: (a) => gitWith(a, 'reset', '--hard', '--merge', '--keep'),
  },
  {
    name: 'git clean -f',
    why: 'deletes untracked files (only `git clean -n` runs)',
    completions: [['clean', '-f'], ['-f']],
    matches: (a) =>
      gitWith(a, 'clean') &&
      (gitWith(a, 'clean', '-f', '--force') || !gitWith(a, 'clean', '-n', '--dry-run')),
  },
  {
    name: 'npm publish',
    why: 'publishes a package',
    completions: [['publish'], ['npm', 'publish']],
    matches: (a) => {
      const tool = commandName(a[0] ?? '')
      const [first, second] = positionals(a)
      if (tool === 'npm') return npmCommand(first ?? '', 'publish') || npmCommand(first ?? '', 'unpublish')
      if (tool === 'yarn' && first === 'npm') return second === 'publish'
      return (
        ['pnpm', 'yarn', 'cargo', 'gem', 'twine', 'poetry', 'bun'].includes(tool) &&
        ['publish', 'unpublish', 'push', 'upload', 'yank'].includes(first ?? '')
      )
    },
  },
  { name: 'chmod', why: 'changes permissions', matches: named('chmod', 'chown', 'chgrp', 'chattr') },
  {
    name: 'dd / mkfs',
    why: 'writes raw disks',
    matches: (a) =>
      named('dd', 'fdisk', 'sfdisk', 'parted', 'wipefs', 'mkswap', 'shred', 'losetup')(a) ||
      commandName(a[0] ?? '').startsWith('mkfs'),
  },
  {
    name: 'shutdown',
    why: 'stops the machine',
    completions: [['poweroff'], ['0']],
    matches: (a) =>
      named('shutdown', 'reboot', 'halt', 'poweroff')(a) ||
      sub('systemctl', 'poweroff', 'reboot', 'halt', 'suspend', 'hibernate')(a) ||
      (named('init', 'telinit')(a) && ['0', '6'].includes(a[1] ?? '')),
  },
  {
    name: 'kill -1',
    why: 'signals every process of the user',
    completions: [['-1']],
    matches: (a) => named('kill', 'pkill', 'killall')(a) && (a.at(-1) === '-1' || has(a, '-u')),
  },
  {
    name: 'write to a disk device',
    why: 'overwrites a disk',
    matches: (a) => named('tee', 'cp', 'mv', 'ln', 'install')(a) && a.slice(1).some(isBlockDevice),
  },
]

/** Programs that run code they read: a pipe from curl into one of them runs remote code. */
export const INTERPRETERS = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'fish',
  'python',
  'python3',
  'perl',
  'ruby',
  'node',
  'php',
  'source',
  '.',
  'eval',
])

export const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'aria2c', 'http', 'https'])

export interface AllowRule {
  pattern: Pattern
  /** What the arguments after the pattern may not hold (programs/*.ts). */
  program?: ProgramRule
  /** Nothing but the pattern itself (`node --version`, not `node --version x.js`). */
  exact?: boolean
}

const rule = (text: string, program?: ProgramRule): AllowRule => ({ pattern: parsePattern(text), program })

const anyArgs = (...names: string[]) => names.map((n) => rule(n))
const exact = (...texts: string[]) => texts.map((t) => ({ pattern: parsePattern(t), exact: true }))

export const ALLOW_RULES: readonly AllowRule[] = [
  // Read-only, with no option that runs or writes anything.
  ...anyArgs(
    'ls',
    'cat',
    'pwd',
    'echo',
    'grep',
    'egrep',
    'fgrep',
    'head',
    'tail',
    'wc',
    'cut',
    'tr',
    'diff',
    'cmp',
    'stat',
    'du',
    'df',
    'basename',
    'dirname',
    'realpath',
    'readlink',
    'which',
    'type',
    'whoami',
    'uname',
    'true',
    'false',
    'test',
    '[',
    'jq',
    'nl',
    'column',
    'comm',
    'md5sum',
    'sha1sum',
    'sha256sum',
    'seq',
    'sleep',
    'cd',
    'printenv',
    'id',
  ),
  rule('printf', PRINTF),
  rule('rg', RG),
  rule('find', FIND),
  rule('sort', SORT),
  rule('uniq', UNIQ),
  rule('file', FILE),
  rule('tree', TREE),
  rule('date', DATE),
  rule('hostname', HOSTNAME),
  rule('sed', SED),
  rule('command -v'),
  rule('command -V'),
  ...Object.entries(GIT_SUBCOMMANDS).map(([s, program]) => rule(`git ${s}`, program)),
  rule('git stash list'),
  ...(['npm', 'pnpm', 'yarn'] as const).flatMap((pm) => [
    rule(`${pm} test`, pm === 'npm' ? PACKAGE_SCRIPT : SCRIPT_ARGS),
    ...['test', 'build', 'lint', 'typecheck'].map((s) =>
      rule(`${pm} run ${s}`, pm === 'npm' ? PACKAGE_SCRIPT : SCRIPT_ARGS),
    ),
  ]),
  rule('npm t', PACKAGE_SCRIPT),
  rule('npm ls'),
  ...['build', 'lint', 'typecheck'].flatMap((s) => [
    rule(`pnpm ${s}`, SCRIPT_ARGS),
    rule(`yarn ${s}`, SCRIPT_ARGS),
  ]),
  rule('npx vitest run', VITEST),
  rule('npx tsc --noEmit', TSC),
  rule('tsc --noEmit', TSC),
  rule('npx jest', JEST),
  rule('npx eslint', ESLINT),
  rule('eslint', ESLINT),
  rule('npx prettier --check', PRETTIER),
  rule('prettier --check', PRETTIER),
  rule('pytest', PYTEST),
  rule('python -m pytest', PYTEST),
  rule('python3 -m pytest', PYTEST),
  ...['test', 'build', 'vet'].map((s) => rule(`go ${s}`, GO)),
  ...['test', 'build', 'check', 'clippy'].map((s) => rule(`cargo ${s}`, CARGO)),
  rule('mvn test', MAVEN),
  rule('mvn compile', MAVEN),
  rule('ruff check', RUFF),
  ...['test', 'check', 'build', 'lint'].map((s) => rule(`make ${s}`, MAKE)),
  ...exact(
    'node --version',
    'node -v',
    'npm --version',
    'npm -v',
    'pnpm --version',
    'yarn --version',
    'python --version',
    'python3 --version',
    'go version',
    'cargo --version',
    'rustc --version',
    'mvn --version',
    'mvn -v',
    'git --version',
    'java -version',
    'java --version',
    'make --version',
  ),
]

/** A user allow entry (`"tar"`), with the built-in rule for its program when there is one. */
export function userAllowRule(text: string): AllowRule {
  const pattern = parsePattern(text)
  const name = pattern.words[0] ?? ''
  const program = pattern.words.length === 1 ? (USER_ALLOWED_RULES[name] ?? builtinRuleFor(name)) : undefined
  return { pattern, program }
}

/** The built-in allowlist's rule for a bare program name (`rg`, `sort`), so a user's `"rg"` keeps it. */
function builtinRuleFor(name: string): ProgramRule | undefined {
  return ALLOW_RULES.find((r) => r.pattern.words.length === 1 && r.pattern.words[0] === name)?.program
}

/** Why an argv that matched `rule` still is not safe to run unasked, or null when it is. */
export function allowRuleObjection(rule: AllowRule, rest: readonly string[]): string | null {
  if (rule.exact && rest.some((r) => !rule.pattern.flags.includes(r)))
    return `only \`${rule.pattern.text}\` itself runs unasked`
  if (!rule.program) return null
  return programObjection(rule.pattern.text, rule.program, rule.program === TAR ? tarArgs(rest) : rest)
}

/** True when arguments unknown until run time (`xargs`, `$X`) could break the rule. */
export function isRestrictedRule(rule: AllowRule): boolean {
  return rule.exact === true || (rule.program !== undefined && isRestricted(rule.program))
}

/** The first allow rule whose pattern matches, with the arguments left after it. */
export function findAllowRule(
  argv: readonly string[],
  rules: readonly AllowRule[],
): { rule: AllowRule; rest: string[] } | null {
  for (const r of rules) {
    const rest = matchStrictly(argv, r.pattern)
    if (rest) return { rule: r, rest }
  }
  return null
}

/**
 * A user deny pattern (`git push --force`) against an argv: its words as the
 * leading operands, its flags in any spelling the program takes (`--for`, `-fu`).
 */
export function matchesDenyPattern(argv: readonly string[], pattern: Pattern): boolean {
  if (!matchesLoosely(argv, { ...pattern, flags: [] })) return false
  if (pattern.flags.length === 0) return true
  const known = optionTableOf(argv)
  const used = known ? optionNames(known.args, known.table) : flagsOf(argv.slice(1))
  const longs = argv
    .slice(1)
    .filter((a) => /^--[^=]{2,}/.test(a))
    .map((a) => a.split('=')[0])
  return pattern.flags.every((f) => used.has(f) || (f.startsWith('--') && longs.some((l) => f.startsWith(l))))
}

/**
 * The deny rule (or user pattern) an argv could match once its words only known at
 * run time are filled in: `holes` are the indexes of such words, each of which may
 * become any words; `appended`, more words follow (`xargs rm`, `rg --pre rm`). Words
 * after `--` stay operands, so `rm -- "$f"` cannot become `rm -rf`.
 */
export function openDenyRule(
  argv: readonly string[],
  holes: ReadonlySet<number>,
  appended: boolean,
  userDeny: readonly Pattern[],
): string | null {
  const filled = (words: readonly string[]) => {
    const out = argv.flatMap((a, i) => (holes.has(i) ? words : [a]))
    return [...(holes.size > 0 ? [out] : []), ...(appended ? [[...out, ...words]] : [])]
  }
  for (const rule of DENY_RULES)
    for (const words of rule.completions ?? [])
      if (filled(words).some((a) => rule.matches(a))) return rule.name
  for (const pattern of userDeny)
    if (filled(pattern.tokens.slice(1)).some((a) => matchesDenyPattern(a, pattern)))
      return `"${pattern.text}"`
  return null
}
