import { commandName, isFlag } from './argv'
import type { Word } from './parse'

/*
 * Commands that run another command: `env X=1 cmd`, `timeout 5 cmd`, `xargs cmd`,
 * `nohup cmd`, … The policy judges the command they run. Shells given a script
 * (`bash -c '…'`, `eval …`, `watch …`, `env -S '…'`) hand back that script, which
 * the policy parses in turn.
 */

export interface Unwrapped {
  /** The command that actually runs. Empty when the wrapper runs nothing (`xargs` with no command is echo). */
  argv: Word[]
  /** Wrappers peeled off, outermost first. */
  wrappers: string[]
  /** Variables a wrapper sets (`env PATH=… cmd`). */
  assignments: string[]
  /** The wrapped command gets arguments nobody can see here (`xargs`). */
  extraArgs: boolean
  /** A script a shell will parse (`bash -c SCRIPT`). */
  script?: Word
}

/** Options that take a value, per wrapper; a value glued on (`-n5`, `--signal=KILL`) needs no skip. */
const WRAPPERS: Record<string, { withValue: readonly string[]; positionalsBefore?: number }> = {
  env: { withValue: ['-u', '--unset', '-C', '--chdir'] },
  nohup: { withValue: [] },
  time: { withValue: ['-f', '--format', '-o', '--output'] },
  setsid: { withValue: [] },
  exec: { withValue: ['-a'] },
  builtin: { withValue: [] },
  command: { withValue: [] },
  nice: { withValue: ['-n', '--adjustment'] },
  ionice: { withValue: ['-c', '--class', '-n', '--classdata', '-p', '-P', '-u'] },
  stdbuf: { withValue: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  timeout: { withValue: ['-s', '--signal', '-k', '--kill-after'], positionalsBefore: 1 },
  unbuffer: { withValue: [] },
  xargs: {
    withValue: [
      '-I',
      '-n',
      '-P',
      '-L',
      '-l',
      '-s',
      '-d',
      '-E',
      '-e',
      '-a',
      '--arg-file',
      '--delimiter',
      '--max-args',
      '--max-procs',
      '--replace',
    ],
  },
  chronic: { withValue: [] },
  caffeinate: { withValue: [] },
  flock: { withValue: ['-w', '--timeout', '-E', '--conflict-exit-code'], positionalsBefore: 1 },
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish'])

export function unwrap(argv: readonly Word[]): Unwrapped {
  const out: Unwrapped = { argv: [...argv], wrappers: [], assignments: [], extraArgs: false }
  for (let depth = 0; depth < 10 && out.argv.length > 0; depth++) {
    const first = out.argv[0]
    if (first.dynamic) return out
    const name = commandName(first.value)
    if (SHELLS.has(name)) return shellScript(out, name)
    if (name === 'eval') return joinedScript(out, 'eval', 1)
    if (name === 'watch') return watchScript(out)
    // `command -v x` looks a name up; it runs nothing.
    if (name === 'command' && /^-[vV]$/.test(out.argv[1]?.value ?? '')) return out
    const spec = WRAPPERS[name]
    if (!spec) return out
    let i = 1
    let before = spec.positionalsBefore ?? 0
    while (i < out.argv.length) {
      const word = out.argv[i]
      if (word.dynamic) return out
      const token = word.value
      if (token === '--') {
        i++
        break
      }
      if (name === 'env' && (token === '-S' || token === '--split-string')) {
        const script = out.argv[i + 1] ?? { value: '', dynamic: true }
        return { ...out, wrappers: [...out.wrappers, 'env -S'], argv: [], script }
      }
      if (name === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(token)) {
        out.assignments.push(token.split('=')[0])
        i++
        continue
      }
      if (isFlag(token)) {
        i += spec.withValue.includes(token) ? 2 : 1
        continue
      }
      if (before > 0) {
        before--
        i++
        continue
      }
      break
    }
    out.wrappers.push(name)
    if (name === 'xargs') {
      out.extraArgs = true
      // xargs with no command runs echo.
      if (i >= out.argv.length) return { ...out, argv: [{ value: 'echo', dynamic: false }] }
    }
    out.argv = out.argv.slice(i)
  }
  return out
}

/** `bash [-opts] -c SCRIPT [arg0 args]`: the script is the first operand after the options. */
function shellScript(out: Unwrapped, name: string): Unwrapped {
  let hasC = false
  for (let i = 1; i < out.argv.length; i++) {
    const word = out.argv[i]
    if (word.dynamic && !hasC) return out
    if (!word.dynamic && isFlag(word.value) && word.value !== '--') {
      if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(word.value)) hasC = true
      // `-o option` / `+o option` take a value.
      if (word.value === '-o' || word.value === '-O') i++
      continue
    }
    if (!hasC) return out
    return { ...out, wrappers: [...out.wrappers, `${name} -c`], script: word, argv: [] }
  }
  return out
}

/** `eval a b` and `watch a b` run their operands joined by spaces as one script. */
function joinedScript(out: Unwrapped, name: string, from: number): Unwrapped {
  const words = out.argv.slice(from)
  const dynamic = words.some((w) => w.dynamic)
  return {
    ...out,
    wrappers: [...out.wrappers, name],
    argv: [],
    script: { value: words.map((w) => w.value).join(' '), dynamic },
  }
}

function watchScript(out: Unwrapped): Unwrapped {
  let i = 1
  while (i < out.argv.length && isFlag(out.argv[i].value)) {
    i += ['-n', '--interval'].includes(out.argv[i].value) ? 2 : 1
  }
  return joinedScript(out, 'watch', i)
}
