import { commandName } from './argv'
import { CODE_INTERPRETERS } from './interpreters'
import { normalise, options, type OptionTable } from './options'
import type { Word } from './parse'

/*
 * Commands that run another command: `env X=1 cmd`, `timeout 5 cmd`, `xargs cmd`,
 * `nohup cmd`, … The policy judges the command they run. Shells given a script
 * (`bash -c '…'`, `watch …`, `trap '…'`) hand back that script, which the policy
 * parses in turn. When what runs cannot be known from the line — a name from a
 * variable, a shell reading stdin, `eval`, `source`, an option of a wrapper this
 * check does not know — the result says so, and the policy refuses the line.
 */

export interface Unwrapped {
  /** The command that actually runs. Empty when the wrapper runs nothing (`nohup` alone). */
  argv: Word[]
  /** Wrappers peeled off, outermost first. */
  wrappers: string[]
  /** Variables a wrapper sets (`env PATH=… cmd`). */
  assignments: string[]
  /** The wrapped command gets arguments nobody can see here (`xargs`). */
  extraArgs: boolean
  /** A script a shell will parse (`bash -c SCRIPT`). */
  script?: Word
  /** Why the command that runs is only known at run time; the policy refuses such a line. */
  unresolvable?: string
  /** Something a wrapper does besides running the command (`time -o FILE` writes FILE): the part asks. */
  asks?: string
  /** A program that runs its operands as a command in ways not modelled here (`strace`, `npx`): scan them. */
  opaque?: boolean
}

interface WrapperSpec {
  table: OptionTable
  /** Operands before the command (`timeout DURATION cmd`, `flock FILE cmd`). */
  operandsBefore?: number
}

const wrapper = (long: string, short: string, operandsBefore = 0): WrapperSpec => ({
  table: options({ long, short }, { stopAtOperand: true }),
  operandsBefore,
})

/** Each wrapper's options, so `timeout --sig KILL 5 rm -rf /` still finds `rm` (GNU prefixes included). */
const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  env: wrapper(
    'ignore-environment null unset= chdir= split-string= block-signal=? default-signal=? ignore-signal=? list-signal-handling debug argv0= help version',
    'i 0 u= C= S= v a=',
  ),
  nohup: wrapper('help version', ''),
  time: wrapper('format= output= append verbose portability quiet help version', 'f= o= a v p q'),
  setsid: wrapper('ctty fork wait help version', 'c f w h V'),
  exec: wrapper('', 'a= c l'),
  builtin: wrapper('', ''),
  command: wrapper('', 'p'),
  nice: wrapper('adjustment= help version', 'n= 0 1 2 3 4 5 6 7 8 9'),
  ionice: wrapper('class= classdata= ignore help version', 'c= n= t'),
  stdbuf: wrapper('input= output= error= help version', 'i= o= e='),
  timeout: wrapper('signal= kill-after= preserve-status foreground verbose help version', 's= k= p v', 1),
  flock: wrapper(
    'timeout= conflict-exit-code= shared exclusive nonblock nb unlock close no-fork verbose help version',
    's x e n u o F w= E=',
    1,
  ),
  chronic: wrapper('', 'e v'),
  unbuffer: wrapper('', 'p'),
  caffeinate: wrapper('', 'd i m s u t= w='),
  busybox: wrapper('', ''),
  xargs: wrapper(
    'null arg-file= delimiter= eof=? replace=? max-lines=? max-args= interactive no-run-if-empty max-chars= show-limits verbose exit max-procs= process-slot-var= open-tty help version',
    '0 a= d= E= e=? I= i=? L= l=? n= p r s= t x P= o',
  ),
}

/** Tools that run a command only through one subcommand (`npm exec`, `poetry run`). */
const RUNNER_SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  npm: ['exec', 'x'],
  pnpm: ['exec', 'dlx'],
  yarn: ['exec', 'dlx'],
  uv: ['run', 'tool'],
  poetry: ['run'],
  pipenv: ['run'],
  bundle: ['exec'],
}

/** Programs that run a command they are given, in ways not worth modelling: the policy scans their operands. */
const OPAQUE = new Set([
  'strace',
  'ltrace',
  'valgrind',
  'chroot',
  'unshare',
  'nsenter',
  'firejail',
  'taskset',
  'numactl',
  'prlimit',
  'systemd-run',
  'chpst',
  'catchsegv',
  'fakeroot',
  'faketime',
  'proxychains',
  'proxychains4',
  'torsocks',
  'gdb',
  'npx',
  'pnpx',
  'bunx',
  'uvx',
  'ssh',
])

/** Options of runners whose value is a shell command line (`npx -c '…'`, `script -c '…'`). */
const SCRIPT_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  npx: ['-c', '--call'],
  npm: ['-c', '--call'],
  script: ['-c', '--command'],
}

export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'fish', 'ash', 'csh', 'tcsh'])

/** Builtins that change what a name runs or run text as commands. */
const REWIRING: Readonly<Record<string, (args: string[]) => string | null>> = {
  eval: () => '`eval` runs a string as a command',
  parallel: () => '`parallel` builds commands from its input',
  source: () => '`source` runs the commands of a file',
  '.': () => '`.` runs the commands of a file',
  fc: () => '`fc` re-runs commands from the history',
  enable: () => '`enable` changes which builtins exist',
  alias: (args) => (args.some((a) => a.includes('=')) ? 'an alias hides what a name runs' : null),
  shopt: (args) =>
    args.includes('expand_aliases') ? '`shopt -s expand_aliases` lets aliases hide what runs' : null,
  hash: (args) =>
    args.some((a) => a.startsWith('-') && a.includes('p'))
      ? '`hash -p` points a name at another program'
      : null,
}

const PATTERN_NAME = /[*?[]|\{[^}]*,[^}]*\}/

export function unwrap(argv: readonly Word[]): Unwrapped {
  const out: Unwrapped = { argv: [...argv], wrappers: [], assignments: [], extraArgs: false }
  const refuse = (why: string): Unwrapped => ({ ...out, unresolvable: why })
  for (let depth = 0; depth < 12 && out.argv.length > 0; depth++) {
    const first = out.argv[0]
    const via = out.wrappers.length > 0 ? ` (run by \`${out.wrappers.at(-1)}\`)` : ''
    if (first.dynamic) return refuse(`the command name \`${first.value}\`${via} is only known at run time`)
    if (first.ansiC) return refuse(`the command name is written in ANSI-C quoting ($'…')`)
    if (PATTERN_NAME.test(first.value) && first.value !== '[' && first.value !== '[[')
      return refuse(`the command name \`${first.value}\` is a pattern the shell expands`)
    const name = commandName(first.value)
    const values = out.argv.slice(1).map((w) => w.value)
    const rewiring = REWIRING[name]?.(values)
    if (rewiring) return refuse(rewiring)
    if (SHELLS.has(name)) return shellScript(out, name)
    if (name === 'watch') return watchScript(out)
    if (name === 'trap') return trapScript(out)
    if (name === 'xargs') {
      const replace = xargsReplace(values)
      const inner = peel(out, name)
      if (inner.unresolvable || inner.argv.length === 0) return inner
      inner.extraArgs = true
      if (replace && inner.argv[0].value.includes(replace))
        return refuse('`xargs` takes the command name from its input')
      const innerName = commandName(inner.argv[0].value)
      // `xargs -I{} sh -c {}`, `xargs -I% python3 -c %`: the input becomes the code that runs.
      const coder = SHELLS.has(innerName) || CODE_INTERPRETERS.has(innerName)
      if (replace && coder && inner.argv.slice(1).some((w) => w.value.includes(replace)))
        return refuse(`\`xargs ${innerName}\` runs code built from its input`)
      if (SHELLS.has(innerName) && !inner.argv.some((w) => /^-[a-z]*c[a-z]*$/.test(w.value)))
        return refuse(`\`xargs ${innerName}\` runs commands from its input`)
      // Each word holding the replace string is only known once xargs reads its input.
      out.argv = inner.argv.map((w) => (replace && w.value.includes(replace) ? { ...w, dynamic: true } : w))
      out.wrappers = inner.wrappers
      out.extraArgs = true
      continue
    }
    if (name === 'command' && /^-[pvV]*[vV]/.test(values[0] ?? '')) return out
    const scriptOption = SCRIPT_OPTIONS[name]
    const at = scriptOption ? out.argv.findIndex((w) => scriptOption.includes(w.value.split('=')[0])) : -1
    if (at > 0) {
      const glued = out.argv[at].value.includes('=')
      const script = glued
        ? { ...out.argv[at], value: out.argv[at].value.slice(out.argv[at].value.indexOf('=') + 1) }
        : (out.argv[at + 1] ?? { value: '', dynamic: true })
      if (script.dynamic) return refuse(`the command \`${name}\` runs is only known at run time`)
      return { ...out, wrappers: [...out.wrappers, `${name} -c`], argv: [], script }
    }
    if (name === 'sg') return { ...out, opaque: true }
    if (OPAQUE.has(name) || RUNNER_SUBCOMMANDS[name]?.includes(values.find((v) => !v.startsWith('-')) ?? ''))
      return { ...out, opaque: true }
    if (!WRAPPERS[name]) return out
    const inner = peel(out, name)
    if (inner.unresolvable || inner.script) return inner
    Object.assign(out, inner)
  }
  return out
}

/** Peels one wrapper off by its option table; an option it does not know leaves the command unknown. */
function peel(out: Unwrapped, name: string): Unwrapped {
  const spec = WRAPPERS[name]
  const words = out.argv.slice(1)
  const parsed = normalise(
    words.map((w) => w.value),
    spec.table,
  )
  const next = { ...out, wrappers: [...out.wrappers, name], assignments: [...out.assignments] }
  const unknown = parsed.options.find((o) => o.unknown)
  if (unknown)
    return {
      ...next,
      unresolvable: `\`${name}\` with \`${unknown.raw}\`: an option this check does not know`,
    }
  if (parsed.options.some((o) => o.names.some((n) => n === '-S' || n === '--split-string')))
    return { ...next, unresolvable: '`env -S` splits a string into a command' }
  if (name === 'time' && parsed.options.some((o) => o.names.some((n) => ['-o', '--output'].includes(n))))
    next.asks = '`time -o` writes to a file'
  let at = parsed.operandsFrom
  if (name === 'env')
    while (at < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[at].value)) {
      next.assignments.push(words[at].value.split('=')[0])
      at++
    }
  at += spec.operandsBefore ?? 0
  if (name === 'flock' && ['-c', '--command'].includes(words[at]?.value ?? ''))
    return {
      ...next,
      argv: [],
      wrappers: [...next.wrappers.slice(0, -1), 'flock -c'],
      script: words[at + 1] ?? { value: '', dynamic: true },
    }
  return { ...next, argv: words.slice(at) }
}

/** xargs's replace string (`-I{}`, `-i`, `--replace`), when it has one. */
function xargsReplace(args: string[]): string | undefined {
  const parsed = normalise(args, WRAPPERS.xargs.table)
  const option = parsed.options.find((o) => o.names.some((n) => ['-I', '-i', '--replace'].includes(n)))
  return option ? option.value || '{}' : undefined
}

/** `bash [-opts] -c SCRIPT [arg0 args]`, `bash FILE`, or a shell reading commands from stdin. */
function shellScript(out: Unwrapped, name: string): Unwrapped {
  let hasC = false
  const refuse = (why: string): Unwrapped => ({ ...out, unresolvable: why })
  for (let i = 1; i < out.argv.length; i++) {
    const word = out.argv[i]
    if (word.dynamic && !hasC) return refuse(`\`${name}\` is given \`${word.value}\`, only known at run time`)
    const value = word.value
    if (!word.dynamic && /^[-+]/.test(value) && value.length > 1 && value !== '--') {
      if (/^-[a-zA-Z]*c/.test(value)) hasC = true
      if (/^-[a-zA-Z]*s/.test(value)) return refuse(`\`${name} -s\` reads its commands from stdin`)
      if (/^-[a-zA-Z]*i/.test(value) || value === '--interactive')
        return refuse(`an interactive \`${name}\` expands aliases and reads startup files`)
      if (['--rcfile', '--init-file'].includes(value)) return out
      if (/^[-+][oO]$/.test(value)) i++
      continue
    }
    if (value === '--' && !hasC) continue
    if (!hasC) return out
    if (word.dynamic) return refuse(`the script \`${name} -c\` runs is only known at run time`)
    return { ...out, wrappers: [...out.wrappers, `${name} -c`], script: word, argv: [] }
  }
  return refuse(
    hasC
      ? `\`${name} -c\` has no script`
      : `\`${name}\` reads its commands from stdin (a pipe, heredoc or here-string)`,
  )
}

/** `watch a b` runs its operands joined by spaces as one script. */
function watchScript(out: Unwrapped): Unwrapped {
  let i = 1
  while (i < out.argv.length && out.argv[i].value.startsWith('-')) {
    i += ['-n', '--interval', '-d', '-q'].includes(out.argv[i].value) ? 2 : 1
  }
  const words = out.argv.slice(i)
  const script = { value: words.map((w) => w.value).join(' '), dynamic: words.some((w) => w.dynamic) }
  if (script.dynamic) return { ...out, unresolvable: 'the command `watch` runs is only known at run time' }
  return { ...out, wrappers: [...out.wrappers, 'watch'], argv: [], script }
}

/** `trap 'cmd' EXIT` runs `cmd` later: checked like `bash -c`. */
function trapScript(out: Unwrapped): Unwrapped {
  const args = out.argv.slice(1).filter((w) => w.value !== '--')
  if (args.length < 2 || args[0].value.startsWith('-')) return { ...out, argv: [] }
  if (args[0].dynamic) return { ...out, unresolvable: 'the command `trap` runs is only known at run time' }
  return { ...out, wrappers: [...out.wrappers, 'trap'], argv: [], script: args[0] }
}
