import { commandName, flagsOf, matchStrictly, parsePattern, positionals, type Pattern } from './argv'

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
}

const named =
  (...names: string[]) =>
  (argv: readonly string[]) =>
    names.includes(commandName(argv[0] ?? ''))

const sub =
  (tool: string, ...subcommands: string[]) =>
  (argv: readonly string[]) =>
    commandName(argv[0] ?? '') === tool && subcommands.includes(positionals(argv)[0] ?? '')

const has = (argv: readonly string[], ...anyOf: string[]) => {
  const flags = flagsOf(argv.slice(1))
  return anyOf.some((f) => flags.has(f))
}

const BLOCK_DEVICE = /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk|md|dm-|loop|sr)/

export function isBlockDevice(target: string): boolean {
  return BLOCK_DEVICE.test(target)
}

export const DENY_RULES: readonly DenyRule[] = [
  {
    name: 'rm -rf',
    why: 'recursive forced delete',
    matches: (a) => named('rm')(a) && has(a, '-r', '-R', '--recursive') && has(a, '-f', '--force'),
  },
  { name: 'sudo', why: 'runs as another user', matches: named('sudo', 'su', 'doas', 'pkexec', 'runuser') },
  { name: 'git push', why: 'nothing ever pushes', matches: sub('git', 'push') },
  {
    name: 'git reset --hard',
    why: 'discards uncommitted work',
    matches: (a) => sub('git', 'reset')(a) && has(a, '--hard'),
  },
  {
    name: 'git clean -f',
    why: 'deletes untracked files',
    matches: (a) => sub('git', 'clean')(a) && has(a, '-f', '--force'),
  },
  {
    name: 'npm publish',
    why: 'publishes a package',
    matches: (a) =>
      ['npm', 'pnpm', 'yarn', 'cargo', 'gem', 'twine'].includes(commandName(a[0] ?? '')) &&
      ['publish', 'unpublish', 'push', 'upload'].includes(positionals(a)[0] ?? ''),
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
    matches: (a) =>
      named('shutdown', 'reboot', 'halt', 'poweroff')(a) ||
      sub('systemctl', 'poweroff', 'reboot', 'halt', 'suspend', 'hibernate')(a) ||
      (named('init', 'telinit')(a) && ['0', '6'].includes(a[1] ?? '')),
  },
  {
    name: 'kill -1',
    why: 'signals every process of the user',
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
  /** Flags that make the command write or run something (find -delete, sort -o). */
  forbid?: readonly string[]
  /** Most operands after the pattern (`uniq in out` writes `out`). */
  maxArgs?: number
  /** Nothing but the pattern itself (`node --version`, not `node --version x.js`). */
  exact?: boolean
}

const rule = (text: string, opts: Omit<AllowRule, 'pattern'> = {}): AllowRule => ({
  pattern: parsePattern(text),
  ...opts,
})

const anyArgs = (...names: string[]) => names.map((n) => rule(n))
const exact = (...texts: string[]) => texts.map((t) => rule(t, { exact: true }))

const GIT_WRITES = ['--output', '--ext-diff', '-O', '--open-files-in-pager']

export const ALLOW_RULES: readonly AllowRule[] = [
  ...anyArgs(
    'ls',
    'cat',
    'pwd',
    'echo',
    'printf',
    'grep',
    'egrep',
    'fgrep',
    'rg',
    'head',
    'tail',
    'wc',
    'cut',
    'tr',
    'diff',
    'cmp',
    'file',
    'stat',
    'du',
    'df',
    'tree',
    'basename',
    'dirname',
    'realpath',
    'readlink',
    'which',
    'type',
    'whoami',
    'uname',
    'date',
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
    'hostname',
    'id',
    'pytest',
  ),
  rule('find', {
    forbid: ['-delete', '-exec', '-execdir', '-ok', '-okdir', '-fprint', '-fprint0', '-fprintf', '-fls'],
  }),
  rule('sort', { forbid: ['-o', '--output'] }),
  rule('uniq', { maxArgs: 1 }),
  rule('command -v'),
  rule('command -V'),
  rule('env', { maxArgs: 0 }),
  ...['status', 'diff', 'log', 'show', 'rev-parse', 'ls-files', 'blame', 'grep', 'describe', 'shortlog'].map(
    (s) => rule(`git ${s}`, { forbid: GIT_WRITES }),
  ),
  rule('git branch', {
    maxArgs: 0,
    forbid: [
      '-d',
      '-D',
      '--delete',
      '-m',
      '-M',
      '--move',
      '-c',
      '-C',
      '--copy',
      '-f',
      '--force',
      '-u',
      '--set-upstream-to',
      '--unset-upstream',
      '--edit-description',
    ],
  }),
  rule('git remote', { maxArgs: 0 }),
  rule('git stash list'),
  ...['npm', 'pnpm', 'yarn'].flatMap((pm) => [
    rule(`${pm} test`),
    ...['test', 'build', 'lint', 'typecheck'].map((s) => rule(`${pm} run ${s}`)),
  ]),
  rule('npm t'),
  rule('npm ls'),
  ...['build', 'lint', 'typecheck'].flatMap((s) => [rule(`pnpm ${s}`), rule(`yarn ${s}`)]),
  rule('npx vitest run'),
  rule('npx tsc --noEmit'),
  rule('tsc --noEmit'),
  rule('npx jest'),
  rule('npx eslint'),
  rule('npx prettier --check'),
  rule('python -m pytest'),
  rule('python3 -m pytest'),
  ...['test', 'build', 'vet'].map((s) => rule(`go ${s}`)),
  ...['test', 'build', 'check', 'clippy'].map((s) => rule(`cargo ${s}`)),
  rule('mvn test'),
  rule('mvn compile'),
  rule('ruff check'),
  ...['test', 'check', 'build', 'lint'].map((s) => rule(`make ${s}`)),
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

/** Why an argv that matched `rule` still is not safe to run unasked, or null when it is. */
export function allowRuleObjection(rule: AllowRule, rest: readonly string[]): string | null {
  if (rule.exact && rest.some((r) => !rule.pattern.flags.includes(r)))
    return `only \`${rule.pattern.text}\` itself runs unasked`
  const flags = flagsOf(rest)
  const bad = rule.forbid?.find((f) => flags.has(f) || rest.some((r) => r.startsWith(`${f}=`)))
  if (bad) return `\`${rule.pattern.text}\` with ${bad} is not on the allowlist`
  if (rule.maxArgs !== undefined) {
    const operands = rest.filter((r) => !r.startsWith('-'))
    if (operands.length > rule.maxArgs)
      return `\`${rule.pattern.text}\` with ${operands.length} operands may change things`
  }
  return null
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
