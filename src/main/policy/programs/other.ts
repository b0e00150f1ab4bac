import { options, type Normalised } from '../options'
import { RUNS, WRITES, runs, type ProgramRule, type UsedEffect } from './types'

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
      'absolute-names transform= xform= index-file=',
    short: 'x t c r u d A f= C= z j J v I= F= k O P T= X=',
  }),
  // GNU tar runs these through `sh -c` (--to-command with each member on its stdin; the
  // compressor with the archive on it), and the remote shell and rmt as programs.
  forbid: {
    '--to-command': runs('shell', { stdin: true }),
    '--use-compress-program': runs('shell', { stdin: true }),
    '-I': runs('shell', { stdin: true }),
    '--checkpoint-action': RUNS,
    '--info-script': runs('shell'),
    '--new-volume-script': runs('shell'),
    '-F': runs('shell'),
    '--rsh-command': runs('program', { args: 'any' }),
    '--rmt-command': runs('program', { args: 'any' }),
    '--index-file': WRITES,
    '--absolute-names': 'writes outside the folder (absolute names)',
    '-P': 'writes outside the folder (absolute names)',
  },
  // `--checkpoint-action=exec=CMD` runs CMD with `sh -c`; other actions only print.
  inner: (parsed) =>
    parsed.options
      .filter((o) => o.names.includes('--checkpoint-action') && /^exec=/.test(o.value ?? ''))
      .map((o) => ({ raw: o.raw, effect: { kind: 'shell' }, value: o.value!.slice('exec='.length) })),
}

/**
 * tar's old style, `tar xzf a.tgz`, `tar xIf sh a.tgz`: the first word is a cluster
 * without its dash, and its letters that take a value take the next words in turn.
 */
export function tarArgs(args: readonly string[]): string[] {
  const [first, ...rest] = args
  if (first === undefined || !/^[a-zA-Z]+$/.test(first)) return [...args]
  const out: string[] = []
  for (const letter of first) {
    out.push(`-${letter}`)
    if (TAR.table.short?.[letter] === 'required' && rest.length > 0) out.push(rest.shift()!)
  }
  return [...out, ...rest]
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
  // man runs its pager and browser through `sh -c`, the page on the pager's stdin.
  forbid: {
    '--pager': runs('shell', { stdin: true }),
    '-P': runs('shell', { stdin: true }),
    '--html': runs('shell', { why: 'opens a browser program', args: 'paths' }),
    '-H': runs('shell', { why: 'opens a browser program', args: 'paths' }),
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
    return /system\s*\(|\||>|@load|@include|getline/.test(awkProgram(parsed))
      ? '`awk` program uses system(), a pipe, a redirection or getline (add --sandbox, or ask)'
      : null
  },
  inner: (parsed: Normalised) =>
    parsed.options.some((o) => o.names.includes('--sandbox')) ? [] : awkEffects(awkProgram(parsed)),
}

/** The program awk runs: its `-e`/`--source` texts, else the first operand. */
function awkProgram(parsed: Normalised): string {
  const sources = parsed.options.filter((o) => o.names.includes('-e') || o.names.includes('--source'))
  return sources.length > 0 ? sources.map((o) => o.value ?? '').join('\n') : (parsed.operands[0] ?? '')
}

/**
 * The commands and files a literal awk program names (POSIX awk, "Output Statements"):
 * `system("…")`, `print | "…"`, `"…" | getline` run the string with `sh -c`;
 * `print > "…"` and `>> "…"` write the file. A command built at run time is not
 * seen here (the program still asks, and its strings are scanned like any inline code).
 */
export function awkEffects(program: string): UsedEffect[] {
  const out: UsedEffect[] = []
  const text = String.raw`"((?:[^"\\]|\\.)*)"`
  const shell = [
    new RegExp(String.raw`system\s*\(\s*${text}\s*\)`, 'g'),
    new RegExp(String.raw`\|&?\s*${text}`, 'g'),
    new RegExp(String.raw`${text}\s*\|&?\s*getline`, 'g'),
  ]
  for (const re of shell)
    for (const m of program.matchAll(re))
      out.push({ raw: m[0], effect: { kind: 'shell' }, value: unquote(m[1]) })
  for (const m of program.matchAll(new RegExp(String.raw`>>?\s*${text}`, 'g')))
    out.push({ raw: m[0], effect: WRITES.effect!, value: unquote(m[1]) })
  return out
}

const unquote = (s: string) => s.replace(/\\(.)/g, '$1')

/** rsync runs its remote shell (`-e 'ssh -p 22'`, split on blanks) with the host and a command after it. */
export const RSYNC: ProgramRule = {
  table: options({
    long:
      'rsh= rsync-path= archive recursive verbose quiet delete dry-run compress exclude= include= ' +
      'files-from= log-file= write-batch= only-write-batch= read-batch= temp-dir= partial-dir= backup-dir= ' +
      'password-file= filter= out-format= info= debug= port= sockopts= help version',
    short: 'e= a r v q n z f= T= h',
  }),
  forbid: {
    '--rsh': runs('words', { args: 'any' }),
    '-e': runs('words', { args: 'any' }),
    '--rsync-path': runs('shell', { why: 'runs another program on the remote side', args: 'any' }),
    '--log-file': WRITES,
    '--write-batch': WRITES,
    '--only-write-batch': WRITES,
  },
}

/**
 * vi, vim, nvim: an ex command given on the command line (`-c CMD`, `--cmd CMD`,
 * `+CMD`) can run any program (`:!cmd`, `:call system()`, `:py3`, `:lua`). A shell
 * command (`!cmd`) is judged as one; a line number or a search is harmless; any
 * other ex command is code this check does not read.
 */
export const VIM: ProgramRule = {
  table: options({ long: 'cmd= clean noplugin', short: 'c= S=? s= u= w= W= R n b e E' }),
  forbid: {
    '-c': 'runs an editor command',
    '--cmd': 'runs an editor command',
    '-S': 'runs the editor commands of a file',
    '-s': 'replays keystrokes from a file',
    '-u': 'reads another startup file',
    '-w': WRITES,
    '-W': WRITES,
  },
  inner(parsed) {
    const commands = [
      ...parsed.options
        .filter((o) => o.names.includes('-c') || o.names.includes('--cmd'))
        .map((o) => o.value ?? ''),
      ...parsed.operands.filter((o) => o.startsWith('+')).map((o) => o.slice(1)),
    ]
    return commands.flatMap((command): UsedEffect[] => {
      const ex = command.replace(/^[\s:]+/, '')
      if (/^(\d*|\$|\/[^|]*|\?[^|]*)$/.test(ex)) return []
      const shell = /^!(.*)$/s.exec(ex)
      if (shell) return [{ raw: command, effect: { kind: 'shell' }, value: shell[1] }]
      return [{ raw: command, effect: { kind: 'code', language: 'an ex command of vim' }, value: command }]
    })
  },
}

/** emacs: `--eval`/`--execute` run Emacs Lisp (`(shell-command "…")`), which this check does not read. */
export const EMACS: ProgramRule = {
  table: options(
    { long: 'eval= execute= load= l= funcall= f= script= batch no-init-file q chdir= file= insert= visit=' },
    { singleDashLong: true },
  ),
  forbid: {
    '-eval': { why: 'runs Emacs Lisp', effect: { kind: 'code', language: 'Emacs Lisp' } },
    '-execute': { why: 'runs Emacs Lisp', effect: { kind: 'code', language: 'Emacs Lisp' } },
    '-load': 'runs the Emacs Lisp of a file',
    '-l': 'runs the Emacs Lisp of a file',
    '-script': 'runs the Emacs Lisp of a file',
    '-funcall': 'calls an Emacs Lisp function',
    '-f': 'calls an Emacs Lisp function',
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
  nawk: AWK,
  rsync: RSYNC,
  vi: VIM,
  vim: VIM,
  nvim: VIM,
  view: VIM,
  emacs: EMACS,
}
