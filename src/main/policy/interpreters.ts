/*
 * The interpreters the command policy (policy.ts) looks into: those that run a program fed
 * through a pipe, and those whose inline code is scanned for shell commands.
 */

/** Interpreters that run a program read from stdin when given none (`cat x | python`). */
export const STDIN_INTERPRETERS = new Set([
  'python',
  'python3',
  'node',
  'perl',
  'ruby',
  'php',
  'lua',
  'Rscript',
  'awk',
  'gawk',
  'tclsh',
  'deno',
  'bun',
])

/** Interpreters whose inline code (`-c`, `-e`, an awk program, a heredoc) is scanned for shell commands. */
export const CODE_INTERPRETERS = new Set([
  ...STDIN_INTERPRETERS,
  'python2',
  'mawk',
  'nawk',
  'jshell',
  'osascript',
])

/** `python` with no script file, no `-c`/`-e`: it reads its program from stdin (`-` too). */
export function readsProgramFromStdin(argv: readonly string[]): boolean {
  const args = argv.slice(1)
  return !args.some((a) => !a.startsWith('-') || /^-[a-zA-Z]*[ceE]$/.test(a) || /^--(eval|command)/.test(a))
}
