import { options, type Normalised } from '../options'
import { RUNS, WRITES, runs, type ProgramRule, type UsedEffect } from './types'

/*
 * Read-only file and text tools, and the options that turn them into something
 * else. Option lists follow each program's manual (GNU coreutils, findutils,
 * grep, sed; ripgrep 14); only what a rule needs is complete: the options that
 * take a value, and every long option sharing a prefix with a forbidden one.
 */

/** `rm` (for the deny list: `--rec --for` is `-rf`). */
export const RM = options({
  long: 'force interactive=? one-file-system no-preserve-root preserve-root=? recursive dir verbose help version',
  short: 'f i I r R d v',
})

export const RG: ProgramRule = {
  table: options({
    long:
      'after-context= before-context= context= case-sensitive ignore-case smart-case count count-matches ' +
      'files files-with-matches files-without-match fixed-strings follow glob= iglob= hidden no-ignore ' +
      'line-number no-line-number max-count= max-depth= multiline multiline-dotall only-matching pretty ' +
      'pre= pre-glob= quiet replace= search-zip sort= sortr= type= type-not= type-add= type-clear= ' +
      'type-list unrestricted vimgrep with-filename no-filename word-regexp line-regexp json ' +
      'hostname-bin= hyperlink-format= threads= encoding= engine= color= colors= heading no-heading ' +
      'null null-data stats trim text binary invert-match regexp= file= max-filesize= path-separator= ' +
      'passthru no-config ignore-file= debug trace help version no-messages column byte-offset crlf ' +
      'max-columns= max-columns-preview context-separator= no-context-separator include-zero pcre2 ' +
      'no-ignore-vcs no-ignore-dot no-ignore-global no-ignore-parent no-ignore-files no-require-git ' +
      'one-file-system sort-files block-buffered line-buffered mmap no-mmap auto-hybrid-regex',
    short: 'A= B= C= c e= f= g= i j= l L m= M= n N o p q r= s S t= T= u U v V w x z 0 a E= H h I d=',
  }),
  forbid: {
    // rg runs the program itself (no shell), with the path of each file it searches.
    '--pre': runs('program', { why: `${RUNS} on every file it searches`, args: 'paths' }),
    '--pre-glob': 'picks the files --pre runs a program on',
    '--search-zip': 'runs decompression programs',
    '-z': 'runs decompression programs',
    '--hostname-bin': runs('program'),
  },
}

export const SORT: ProgramRule = {
  table: options({
    long:
      'ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting ' +
      'month-sort human-numeric-sort numeric-sort random-sort random-source= reverse sort= version-sort ' +
      'batch-size= check=? compress-program= debug files0-from= key= merge output= stable buffer-size= ' +
      'field-separator= temporary-directory= parallel= unique zero-terminated help version',
    short: 'b d f g i M h n R r V c C k= m o= s S= t= T= u z',
  }),
  // sort runs the compressor itself (no shell), with `-d` or nothing, and feeds it the data.
  forbid: { '--output': WRITES, '-o': WRITES, '--compress-program': runs('program', { stdin: true }) },
}

/** find's predicates are single-dash words and never abbreviated. */
export const FIND: ProgramRule = {
  table: {
    singleDashLong: true,
    abbreviations: false,
    long: {
      exec: 'none',
      execdir: 'none',
      ok: 'none',
      okdir: 'none',
      delete: 'none',
      fprint: 'required',
      fprint0: 'required',
      fprintf: 'required',
      fls: 'required',
    },
  },
  forbid: {
    '-exec': RUNS,
    '-execdir': RUNS,
    '-ok': RUNS,
    '-okdir': RUNS,
    '-delete': 'deletes files',
    '-fprint': WRITES,
    '-fprint0': WRITES,
    '-fprintf': WRITES,
    '-fls': WRITES,
  },
  // -exec and friends take a command of several words up to `;`: the policy judges it (policy.ts).
}

export const UNIQ: ProgramRule = {
  table: options({
    long: 'count repeated all-repeated=? skip-fields= ignore-case skip-chars= unique zero-terminated check-chars= group=? help version',
    short: 'c d D f= i s= u z w=',
  }),
  maxOperands: 1,
  inner: (parsed) =>
    parsed.operands.length > 1
      ? [{ raw: parsed.operands[1], effect: WRITES.effect!, value: parsed.operands[1] }]
      : [],
}

export const FILE: ProgramRule = {
  table: options({
    long:
      'brief mime mime-type mime-encoding compile magic-file= files-from= separator= dereference ' +
      'no-dereference keep-going uncompress uncompress-noreport special-files no-pad no-buffer print0 ' +
      'preserve-date raw exclude= exclude-quiet= extension apple parameter= list help version debug',
    short: 'b i C m= f= F= L h k z Z e= P= r s 0 n N p E l v d',
  }),
  forbid: { '--compile': 'writes a compiled magic file', '-C': 'writes a compiled magic file' },
}

export const TREE: ProgramRule = {
  table: options({
    long:
      'help version inodes device noreport nolinks dirsfirst filesfirst charset= filelimit= si du prune ' +
      'timefmt= ignore-case matchdirs metafirst gitignore gitfile= info infofile= hyperlink scheme= ' +
      'authority= fromfile fromtabfile fflinks sort= output= level= pattern= exclude=',
    short: 'a d l f x L= P= I= o= R H= T= i q N Q p u g s h D F v t c U r C n A S J X',
  }),
  forbid: { '-o': WRITES, '--output': WRITES, '-R': 'writes an HTML file into every folder' },
}

/** bash's `printf -v NAME` sets a variable instead of printing: `printf -v PATH %s ./bin; ls`. */
export const PRINTF: ProgramRule = {
  table: options({ short: 'v=' }, { stopAtOperand: true }),
  forbid: { '-v': 'sets a shell variable (PATH, IFS…) instead of printing' },
}

export const DATE: ProgramRule = {
  table: options({
    long: 'date= debug file= iso-8601=? resolution rfc-email rfc-3339= reference= set= universal utc uct help version',
    short: 'd= f= I=? R r= s= u',
  }),
  forbid: { '--set': 'sets the clock', '-s': 'sets the clock' },
}

export const HOSTNAME: ProgramRule = {
  table: options({
    long: 'alias domain fqdn all-fqdns ip-address all-ip-addresses short yp nis file= boot help version',
    short: 'a d f A i I s y F= b h V',
  }),
  forbid: {
    '--file': 'sets the host name',
    '-F': 'sets the host name',
    '--boot': 'sets the host name',
    '-b': 'sets the host name',
  },
  maxOperands: 0,
}

/** `sed` prints; `-i`, the `e` command or flag and `w` write or run, so only plain scripts run unasked. */
export const SED: ProgramRule = {
  table: options({
    long:
      'quiet silent debug expression= file= follow-symlinks in-place=? line-length= null-data ' +
      'zero-terminated posix regexp-extended separate sandbox unbuffered help version',
    short: 'n e= f= i=? l= E r s u z',
  }),
  forbid: {
    '--in-place': 'edits files in place',
    '-i': 'edits files in place',
    '--file': 'runs a script from a file',
    '-f': 'runs a script from a file',
  },
  inner: (parsed) => (sandboxed(parsed) ? [] : sedScripts(parsed).flatMap(sedEffects)),
  check(parsed) {
    if (sandboxed(parsed)) return null
    const bad = sedScripts(parsed).find((s) => !isPlainSedScript(s))
    return bad === undefined
      ? null
      : `\`sed\` script \`${bad}\` may write or run something (only p, d, q, =, s and y commands run unasked; or add --sandbox)`
  },
}

const SED_ADDRESS = String.raw`(?:\d+(?:~\d+)?|\$|/(?:[^/\\\n]|\\.)*/I?)`
const SED_SUBST = String.raw`s([/|#:,])(?:(?!\1)[^\\\n]|\\.)*\1(?:(?!\1)[^\\\n]|\\.)*\1[gpiImM0-9]*`
const SED_TRANSLIT = String.raw`y/(?:[^/\\\n]|\\.)*/(?:[^/\\\n]|\\.)*/`
const SED_COMMAND = new RegExp(
  String.raw`^\s*(?:${SED_ADDRESS}(?:\s*,\s*${SED_ADDRESS})?\s*!?\s*)?(?:[pdqQ=lnNPDhHgGx]|${SED_SUBST}|${SED_TRANSLIT})?\s*$`,
)

/** Commands that only print or transform the stream; no `w`, `r`, `e`, and no `e`/`w` flag on `s`. */
export function isPlainSedScript(script: string): boolean {
  return script.split(/[;\n]/).every((command) => SED_COMMAND.test(command))
}

const sandboxed = (parsed: Normalised) => parsed.options.some((o) => o.names.includes('--sandbox'))

/** The scripts sed runs: each `-e`, else the first operand. */
function sedScripts(parsed: Normalised): string[] {
  const scripts = parsed.options
    .filter((o) => o.names.includes('-e') || o.names.includes('--expression'))
    .map((o) => o.value ?? '')
  return scripts.length > 0 ? scripts : [parsed.operands[0] ?? '']
}

/** `s/pattern/replacement/flags [file]`, with the replacement, the flags and what follows. */
const SED_SUBST_PARTS = /s([/|#:,])(?:(?!\1)[^\\]|\\.)*\1((?:(?!\1)[^\\]|\\.)*)\1([a-zA-Z0-9]*)(?:\s*(.*))?/

/**
 * What a sed script runs or writes (GNU sed manual, "Extended commands"): `e CMD`
 * runs CMD, `s///e` runs the replaced line (read here as the replacement), `w FILE`,
 * `W FILE` and `s///w FILE` write FILE. `e` alone runs the pattern space, which
 * comes from the input like a script file's lines: that asks, as `bash FILE` does.
 */
function sedEffects(script: string): UsedEffect[] {
  const out: UsedEffect[] = []
  for (const line of script.split('\n')) {
    const command = /(?:^|[;}\s])(?:\d+|\$|\/[^/]*\/)?\s*([ewW])\s+(.+)$/.exec(line)
    if (command)
      out.push({
        raw: line,
        effect: command[1] === 'e' ? { kind: 'shell' } : WRITES.effect!,
        value: command[2].trim(),
      })
    const subst = SED_SUBST_PARTS.exec(line)
    if (!subst) continue
    if (subst[3].includes('e')) out.push({ raw: line, effect: { kind: 'shell' }, value: subst[2] })
    if (subst[3].includes('w'))
      out.push({ raw: line, effect: WRITES.effect!, value: (subst[4] ?? '').trim() })
  }
  return out
}
