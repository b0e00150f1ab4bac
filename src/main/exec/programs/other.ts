import { options, type Normalised } from '../options'
import { RUNS, WRITES, type ProgramRule } from './types'

/*
 * Programs off the built-in allowlist that users often add to theirs (`tar`,
 * `less`, `man`, `awk`). A user allow entry lifts the question, not these rules:
 * `"allow": ["tar"]` still asks for `tar --to-command=sh`.
 */

export const TAR: ProgramRule = {
  table: options({
    long:
      'to-command= use-compress-program= checkpoint-action= checkpoint=? info-script= new-volume-script= ' +
      'rsh-command= rmt-command= extract get create list append update diff compare delete file= directory= ' +
      'gzip gunzip bzip2 xz zstd lzma verbose exclude= wildcards strip-components= overwrite keep-old-files ' +
      'absolute-names transform= xform=',
    short: 'x t c r u d A f= C= z j J v I= F= k O P T= X=',
  }),
  forbid: {
    '--to-command': RUNS,
    '--use-compress-program': RUNS,
    '-I': RUNS,
    '--checkpoint-action': RUNS,
    '--info-script': RUNS,
    '--new-volume-script': RUNS,
    '-F': RUNS,
    '--rsh-command': RUNS,
    '--rmt-command': RUNS,
    '--absolute-names': 'writes outside the folder (absolute names)',
    '-P': 'writes outside the folder (absolute names)',
  },
}

/** tar's old style, `tar xzf a.tgz`: the first word is a cluster without its dash. */
export function tarArgs(args: readonly string[]): string[] {
  const [first, ...rest] = args
  return first !== undefined && /^[a-zA-Z]+$/.test(first) ? [`-${first}`, ...rest] : [...args]
}

export const LESS: ProgramRule = {
  table: options({
    long: 'log-file= LOG-FILE= lesskey-file= lesskey-src= quit-if-one-screen',
    short: 'o= O= k= F R S N',
  }),
  forbid: {
    '--log-file': WRITES,
    '--LOG-FILE': WRITES,
    '-o': WRITES,
    '-O': WRITES,
    '--lesskey-file': 'reads key bindings that can run commands',
    '--lesskey-src': 'reads key bindings that can run commands',
    '-k': 'reads key bindings that can run commands',
  },
}

export const MAN: ProgramRule = {
  table: options({
    long: 'pager= html=? preprocessor= config-file= browser=? manpath= sections= local-file',
    short: 'P= H=? p= C= M= S= l',
  }),
  forbid: {
    '--pager': RUNS,
    '-P': RUNS,
    '--html': 'opens a browser program',
    '-H': 'opens a browser program',
    '--preprocessor': RUNS,
    '-p': RUNS,
    '--config-file': 'reads another configuration',
    '-C': 'reads another configuration',
  },
}

/** awk: `system()`, pipes and redirections in the program run or write; `-f` and extensions load unseen code. */
export const AWK: ProgramRule = {
  table: options({
    long: 'file= include= load= exec= source= assign= field-separator= sandbox posix traditional',
    short: 'f= i= l= E= e= v= F=',
  }),
  forbid: {
    '--file': 'runs a program from a file',
    '-f': 'runs a program from a file',
    '--include': 'runs a program from a file',
    '-i': 'runs a program from a file',
    '--load': 'loads a compiled extension',
    '-l': 'loads a compiled extension',
    '--exec': 'runs a program from a file',
    '-E': 'runs a program from a file',
  },
  check(parsed: Normalised) {
    if (parsed.options.some((o) => o.names.includes('--sandbox'))) return null
    const sources = parsed.options.filter((o) => o.names.includes('-e') || o.names.includes('--source'))
    const program =
      sources.length > 0 ? sources.map((o) => o.value ?? '').join('\n') : (parsed.operands[0] ?? '')
    return /system\s*\(|\||>|@load|@include|getline/.test(program)
      ? '`awk` program uses system(), a pipe, a redirection or getline (add --sandbox, or ask)'
      : null
  },
}

/** Rules for the first word of a user allow entry. */
export const USER_ALLOWED_RULES: Readonly<Record<string, ProgramRule>> = {
  tar: TAR,
  less: LESS,
  man: MAN,
  awk: AWK,
  gawk: AWK,
  mawk: AWK,
}
