import { commandName } from '../argv'
import { normalise, options, type OptionTable } from '../options'
import { WRITES, runs, type Danger, type ProgramRule } from './types'

/*
 * git: its global options (exact, before the subcommand, never abbreviated — git.c
 * reads them with strcmp) and, per subcommand, parse-options tables where any
 * unique prefix works (`git reset --har`, `git log --out=x`).
 */

export const GIT_GLOBAL: OptionTable = options(
  {
    long:
      'git-dir= work-tree= namespace= super-prefix= config-env= exec-path=? list-cmds= attr-source= ' +
      'paginate no-pager no-replace-objects no-lazy-fetch no-optional-locks no-advice bare ' +
      'literal-pathspecs glob-pathspecs noglob-pathspecs icase-pathspecs html-path man-path info-path ' +
      'version help',
    short: 'C= c= p P v h',
  },
  { abbreviations: false, stopAtOperand: true },
)

export interface GitCall {
  subcommand: string
  /** The words after the subcommand. */
  args: string[]
  /** `-c key=value` and `--config-env key=VAR` settings, in order. */
  config: { key: string; value?: string; fromEnv?: boolean }[]
  /** Global options other than -C, -c, --no-pager, -P, --no-optional-locks. */
  globals: string[]
}

/** `git -C x -c k=v --no-pager log -5` → subcommand `log`, args `-5`; null when not git or no subcommand. */
export function gitCall(argv: readonly string[]): GitCall | null {
  if (commandName(argv[0] ?? '') !== 'git') return null
  const parsed = normalise(argv.slice(1), GIT_GLOBAL)
  const config: GitCall['config'] = []
  const globals: string[] = []
  for (const o of parsed.options) {
    const name = o.names[0]
    if (name === '-c') {
      const [key, ...value] = (o.value ?? '').split('=')
      config.push({ key: key.toLowerCase(), value: value.length > 0 ? value.join('=') : undefined })
    } else if (name === '--config-env')
      config.push({ key: (o.value ?? '').split('=')[0].toLowerCase(), fromEnv: true })
    else if (!['-C', '--no-pager', '-P', '--no-optional-locks'].includes(name)) globals.push(o.raw)
  }
  const [subcommand, ...args] = parsed.operands
  return subcommand === undefined ? null : { subcommand, args, config, globals }
}

/** Settings whose value is a command git runs (`core.pager`, `alias.x=!…`, `diff.x.textconv`, …). */
export function isProgramSetting(key: string): boolean {
  return /^(core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy)|sequence\.editor|diff\.external|pager\..+|alias\..+|credential\..*helper|gpg(\..+)?\.program|(diff|merge|filter)\..+\.(textconv|command|driver|clean|smudge|process)|(diff|merge)tool\..+\.cmd|uploadpack\.packobjectshook|ssh\.variant|include\.path|includeif\..+|sendemail\..+|web\.browser|browser\..+\.(cmd|path)|man\..+\.(cmd|path))$/.test(
    key,
  )
}

const DIFF_OPTIONS =
  'output= output-indicator-new= output-indicator-old= output-indicator-context= ext-diff no-ext-diff ' +
  'textconv no-textconv patch no-patch stat=? shortstat numstat dirstat=? summary name-only name-status ' +
  'raw color=? no-color word-diff=? word-diff-regex= color-words=? abbrev=? full-index binary ' +
  'src-prefix= dst-prefix= no-prefix line-prefix= relative=? no-relative text ignore-all-space ' +
  'ignore-space-change ignore-blank-lines diff-filter= find-renames=? find-copies=? unified= ' +
  'function-context exit-code quiet cached staged no-index merge-base submodule=? ignore-submodules=? ' +
  'anchored= patience histogram minimal diff-algorithm= inter-hunk-context= check follow'

const LOG_OPTIONS =
  'oneline pretty=? format= graph all branches=? tags=? remotes=? decorate=? no-decorate source ' +
  'max-count= skip= since= after= until= before= author= committer= grep= all-match invert-grep ' +
  'regexp-ignore-case merges no-merges first-parent reverse date= relative-date abbrev-commit ' +
  'no-abbrev-commit show-signature notes=? no-notes mailmap use-mailmap log-size left-right cherry-pick ' +
  'cherry-mark boundary ancestry-path=? simplify-by-decoration full-history walk-reflogs ' +
  'show-linear-break=? topo-order date-order author-date-order exclude= not'

const DIFF_SHORT = 'p u s z M=? C=? B=? D R a b w W O= S= G= U= l= X=?'

const GIT_WRITES: Readonly<Record<string, string | Danger>> = {
  '--output': WRITES,
  '--ext-diff': 'runs the configured external diff program',
  '--textconv': 'runs the configured text conversion programs',
}

const diffLike = (extra = '', short = ''): ProgramRule => ({
  table: options({ long: `${DIFF_OPTIONS} ${extra}`, short: `${DIFF_SHORT} ${short}` }),
  forbid: GIT_WRITES,
})

const BRANCH_READ =
  'list show-current all remotes verbose contains= no-contains= merged= no-merged= points-at= format= sort= column=? no-column color=? no-color abbrev=? no-abbrev ignore-case omit-empty'
const BRANCH_WRITE =
  'delete move copy force set-upstream-to= unset-upstream edit-description track=? no-track create-reflog recurse-submodules'

/** Read-only subcommands and what each must not be given. */
export const GIT_SUBCOMMANDS: Readonly<Record<string, ProgramRule>> = {
  status: {
    table: options({
      long: 'short branch show-stash porcelain=? long verbose untracked-files=? ignore-submodules=? ignored=? null column=? no-column ahead-behind no-ahead-behind renames no-renames find-renames=?',
      short: 's b v u=? z',
    }),
  },
  diff: diffLike(),
  log: diffLike(LOG_OPTIONS, 'n= L= i E F P g c m t'),
  show: diffLike(LOG_OPTIONS, 'n= c m t'),
  shortlog: diffLike(`${LOG_OPTIONS} numbered summary email committer group= format=`, 'n s e c w=?'),
  'rev-parse': {
    table: options({
      long: 'git-dir show-toplevel abbrev-ref=? short=? verify quiet symbolic symbolic-full-name is-inside-work-tree is-bare-repository show-prefix show-cdup',
    }),
  },
  'ls-files': {
    table: options({
      long: 'cached deleted others ignored stage modified killed exclude= exclude-from= exclude-standard full-name error-unmatch with-tree= abbrev=? format=',
      short: 'c d o i s m k z t v f x= X= u',
    }),
  },
  blame: {
    table: options({
      long: 'textconv no-textconv contents= incremental porcelain line-porcelain show-email show-name show-number show-stats root reverse= first-parent encoding= date= ignore-rev= ignore-revs-file= color-lines color-by-age progress no-progress minimal abbrev=?',
      short: 'b c e f l n p s t w L= M=? C=? S=',
    }),
    forbid: { '--textconv': 'runs the configured text conversion programs' },
  },
  grep: {
    table: options({
      long:
        'open-files-in-pager=? textconv no-textconv cached untracked no-index recurse-submodules text ' +
        'ignore-case word-regexp invert-match full-name extended-regexp basic-regexp perl-regexp ' +
        'fixed-strings line-number column files-with-matches name-only files-without-match count ' +
        'color=? no-color break heading show-function function-context threads= max-depth= quiet ' +
        'all-match and or not max-count= context= after-context= before-context= only-matching null',
      short: 'O=? a i I w v h H E G P F n l L c p W e= f= A= B= C= m= o q z r',
    }),
    // git runs the pager through `sh -c` with the matching files' names after it; with no
    // value it takes GIT_PAGER, core.pager or PAGER (GIT_PAGER=cat in every command's environment).
    forbid: {
      '--open-files-in-pager': runs('shell', { why: 'runs a pager program on the matches', args: 'paths' }),
      '-O': runs('shell', { why: 'runs a pager program on the matches', args: 'paths' }),
      '--textconv': 'runs the configured text conversion programs',
    },
  },
  describe: {
    table: options({
      long: 'all tags contains abbrev=? candidates= exact-match debug long match= exclude= always first-parent dirty=? broken=?',
    }),
  },
  branch: {
    table: options({ long: `${BRANCH_READ} ${BRANCH_WRITE}`, short: 'l a r v d D m M c C f u= t' }),
    forbid: Object.fromEntries(
      [
        '--delete',
        '-d',
        '-D',
        '--move',
        '-m',
        '-M',
        '--copy',
        '-c',
        '-C',
        '--force',
        '-f',
        '--set-upstream-to',
        '-u',
        '--unset-upstream',
        '--edit-description',
        '--track',
        '-t',
        '--no-track',
        '--create-reflog',
        '--recurse-submodules',
      ].map((o) => [o, 'changes branches']),
    ),
    // Operands are patterns only with --list; otherwise `git branch NAME` creates one.
    check: (parsed) =>
      parsed.operands.length > 0 &&
      !parsed.options.some((o) => o.names.includes('--list') || o.names.includes('-l'))
        ? '`git branch NAME` creates a branch'
        : null,
  },
  remote: { table: options({ long: 'verbose', short: 'v' }), maxOperands: 0 },
}

/** Tables for the deny list's subcommands (abbreviations included). */
export const GIT_RESET = options({
  long: 'hard soft mixed merge keep quiet no-quiet patch intent-to-add recurse-submodules=? no-recurse-submodules pathspec-from-file= pathspec-file-nul no-refresh refresh',
  short: 'q p N',
})
export const GIT_CLEAN = options({
  long: 'force dry-run quiet exclude= interactive',
  short: 'f n q e= i d x X',
})

export const GIT_TABLES: Readonly<Record<string, OptionTable>> = {
  reset: GIT_RESET,
  clean: GIT_CLEAN,
  push: options({
    long: 'all branches mirror tags follow-tags delete force force-with-lease=? force-if-includes no-force-if-includes dry-run porcelain prune verbose quiet set-upstream repo= receive-pack= exec= atomic signed=? push-option= ipv4 ipv6 no-verify verify thin no-thin progress recurse-submodules=?',
    short: 'n f d u q v o= 4 6',
  }),
  checkout: options({ long: 'force quiet ours theirs merge detach orphan= patch', short: 'f q b= B= m p' }),
  ...Object.fromEntries(Object.entries(GIT_SUBCOMMANDS).map(([k, v]) => [k, v.table])),
}
