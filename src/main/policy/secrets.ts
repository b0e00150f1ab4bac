import os from 'node:os'
import path from 'node:path'
import { commandName } from './argv'
import type { Word } from './parse'
import { HOME_CREDENTIALS, SECRET_FILE_NAMES, SECRETS } from '../containment/denylist'

/*
 * Two readings of an argv the deny rules need besides the options: the words bash's
 * brace expansion makes (`{rm,-rf,x}` is `rm -rf x`), and operands that name a
 * secrets file (`cat .env`, `git show HEAD:.env`) or a credential under a home
 * (`cat ~/.aws/credentials`, however the home is spelled) — refused here as well as
 * masked in the sandbox, so the model learns why, and so a command run unsandboxed
 * (`allowUnsandboxed`, `sandbox: "off"`) cannot read them by name either.
 */

/** Programs that never read a file's contents (names, metadata, the index). */
const NO_READ = new Set([
  'echo',
  'printf',
  'test',
  '[',
  'cd',
  'ls',
  'stat',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'which',
  'type',
  'du',
  'touch',
  'mkdir',
  'rmdir',
])

/** git subcommands that only move names in the index (`git rm --cached .env` is the cure, not the leak). */
const GIT_NO_READ = new Set(['add', 'rm', 'mv', 'check-ignore', 'ls-files', 'status', 'restore'])

/**
 * The first word of argv that names a secrets file or a home credential, with the pattern it
 * matches. `cwd` resolves relative paths (`../../.aws/credentials` from the project).
 */
export function secretOperand(
  words: readonly (Word | string)[],
  cwd = process.cwd(),
): { word: string; pattern: string } | null {
  const argv = words.map((w) => (typeof w === 'string' ? { value: w, dynamic: false } : w))
  const name = commandName(argv[0]?.value ?? '')
  if (NO_READ.has(name)) return null
  if (name === 'git' && argv.slice(1).some((a) => GIT_NO_READ.has(a.value))) return null
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i].value
    // `--exclude=.env`, `-g '!.env'`, `--exclude .env` keep a secret out; they do not read it.
    if (/^-.*(exclude|ignore)/i.test(word) || word.startsWith('!')) continue
    if (/^-.*(exclude|ignore)/i.test(argv[i - 1]?.value ?? '') && !word.startsWith('-')) continue
    for (const candidate of candidates(word)) {
      const pattern = SECRETS.reason(candidate) ?? globReachesSecret(candidate)
      if (pattern) return { word, pattern }
    }
    for (const spelled of spellings(word)) {
      const pattern = homeCredential(spelled, argv[i].dynamic, cwd)
      if (pattern) return { word, pattern }
    }
  }
  const folder = recursiveHomeRead(argv, cwd)
  if (folder) return { word: folder, pattern: 'a home, with ~/.ssh, ~/.aws, … in it' }
  // A word that is the home itself (`tar -C ~ -cf - .ssh`, `--directory=$HOME`) may be where the
  // relative ones are read from: judge them from there too.
  if (!argv.some((a) => spellings(a.value).some((s) => isHome(s, cwd)))) return null
  for (const a of argv.slice(1))
    for (const spelled of spellings(a.value)) {
      if (/^[-/~$]/.test(spelled) || spelled === '') continue
      const pattern = homeCredential(path.posix.join(homes()[0], spelled), false, cwd)
      if (pattern) return { word: a.value, pattern }
    }
  return null
}

/** True when a word names a home folder itself (`~`, `$HOME`, `"${HOME}"/`, the literal path). */
function isHome(word: string, cwd: string): boolean {
  const text = word.replace(/["']/g, '').replace(/\/+$/, '')
  if (/^(~|\$HOME|\$\{HOME\})$/.test(text)) return true
  return text.startsWith('/') && homes().includes(path.posix.resolve(cwd, text))
}

/** The policy's reason for a part that names a secret. */
export function secretRefusal(where: string, secret: { word: string; pattern: string }): string {
  return `${where} names \`${secret.word}\`, a secrets file (${secret.pattern}); its contents stay out of the session`
}

/** The homes a path may be under: $HOME, the account's home from passwd, root's. */
function homes(): string[] {
  let account: string | undefined
  try {
    account = os.userInfo().homedir
  } catch {
    account = undefined // no passwd entry (a container's arbitrary uid)
  }
  return [...new Set([os.homedir(), account, process.env.HOME, '/root'].filter((h): h is string => !!h))]
}

/** A word, what follows its first `=` (`--kubeconfig=~/.kube/config`) and its last `:`. */
function spellings(word: string): string[] {
  return [...new Set([word, word.slice(word.indexOf('=') + 1), word.slice(word.lastIndexOf(':') + 1)])]
}

/** An expansion whose value the policy cannot know (`$X`, `${X:-y}`, `$(…)`, backquotes). */
const EXPANSION = /\$\{[^}]*\}|\$\([^)]*\)|\$[\w@*#?$!-]|`[^`]*`/g

/**
 * The home credential (`~/.aws`) a path names, after bash's `~`, `~user`, `$HOME`,
 * `${HOME}`, the quotes around them and `..` segments; a path partly known only
 * at run time (`$DIR/.ssh/id`, `~/.aws/$F`) is judged by the parts written out.
 */
function homeCredential(word: string, dynamic: boolean, cwd: string): string | undefined {
  const abs = expandPath(word, dynamic, cwd)
  const segments = abs.split('/').filter(Boolean)
  const underHome = [...homes(), ...otherHome(abs)].filter((h) => isUnder(abs, h))
  for (const entry of CREDENTIAL_SEGMENTS) {
    // Under a home: every entry. Anywhere (a backup, another user's home, `$DIR/…`): an entry of
    // two segments or more (`.docker/config.json`) or something inside a folder (`.ssh/id_x`),
    // so a project's own `.yarnrc.yml` stays readable.
    for (const h of underHome) {
      const rel = segments.slice(h.split('/').filter(Boolean).length)
      if (startsWith(rel, entry)) return `~/${entry.join('/')}`
    }
    for (let at = 0; at < segments.length; at++) {
      const rest = segments.slice(at)
      if (startsWith(rest, entry) && (entry.length > 1 || rest.length > 1)) return `~/${entry.join('/')}`
    }
  }
  return undefined
}

/** A path as bash would give it: `~`, `~user`, `$HOME`, `${HOME}` and quotes resolved, from `cwd`. */
function expandPath(word: string, dynamic: boolean, cwd: string): string {
  let text = dynamic ? word.replace(/["']/g, '') : word
  const home = homes()[0]
  text = text
    .replace(/^~(?=\/|$)/, home)
    .replace(/^~([a-z_][\w.-]*)(?=\/|$)/i, (_, user: string) => (user === 'root' ? '/root' : `/home/${user}`))
  if (dynamic) text = text.replace(/^\$(\{HOME\}|HOME\b)/, home)
  // What is only known at run time becomes a NUL, which no name matches: `~/.aws/$F` is still in `~/.aws`.
  if (dynamic) text = text.replace(EXPANSION, '\0')
  return text.startsWith('\0') ? path.posix.normalize(`/${text}`) : path.posix.resolve(cwd, text)
}

/** Programs that read every file under a folder they are given, when their arguments say so. */
const RECURSIVE_READERS: Record<string, (args: readonly string[]) => boolean> = {
  grep: (a) =>
    a.some(
      (x) => /^-[a-zA-Z]*[rR]/.test(x) || /^--(recursive|dereference-recursive|directories=recurse)/.test(x),
    ),
  rg: () => true,
  ag: () => true,
  ack: () => true,
  tar: () => true,
  zip: (a) => a.some((x) => /^-[a-zA-Z]*r/.test(x) || x === '--recurse-paths'),
  cp: (a) => a.some((x) => /^-[a-zA-Z]*[rRa]/.test(x) || /^--(recursive|archive)/.test(x)),
  rsync: () => true,
  find: (a) => a.some((x) => /^-(exec|execdir|ok|okdir)$/.test(x)),
  git: (a) => a.includes('grep') && a.includes('--no-index'),
}

/**
 * An operand that is a home, or a folder above one (`grep -r KEY ~`, `tar -cf - /home`, `rg x /`),
 * given to a program that reads all it holds: the credentials inside are read too. Only paths
 * written as such (absolute, `~`, `$HOME`, with `..`): a project opened at $HOME keeps `grep -r x .`.
 */
function recursiveHomeRead(argv: readonly Word[], cwd: string): string | undefined {
  const name = commandName(argv[0]?.value ?? '')
  const reader = RECURSIVE_READERS[name === 'egrep' || name === 'fgrep' || name === 'rgrep' ? 'grep' : name]
  const values = argv.slice(1).map((w) => w.value)
  if (!reader?.(name === 'rgrep' ? ['-r'] : values)) return undefined
  for (const [i, w] of argv.entries()) {
    const text = w.value.replace(/["']/g, '')
    // `tar -C ~ …` only changes folder: the operands after it say what is read (judged above).
    if (i === 0 || /^(-C|--directory)$/.test(argv[i - 1].value)) continue
    if (text.startsWith('-') || !/^(\/|~|\$HOME|\$\{HOME\})|(^|\/)\.\.(\/|$)/.test(text)) continue
    const abs = expandPath(w.value, w.dynamic, cwd)
    if (abs.includes('\0')) continue
    if (abs === '/home' || homes().some((h) => isUnder(h, abs))) return w.value
  }
  return undefined
}

const CREDENTIAL_SEGMENTS = HOME_CREDENTIALS.map((c) => c.split('/'))

/** `/home/<user>` when the path is under one (another user's home, or `/home/*`). */
function otherHome(abs: string): string[] {
  const m = /^\/home\/[^/]+/.exec(abs)
  return m ? [m[0]] : []
}

function isUnder(abs: string, dir: string): boolean {
  return abs === dir || abs.startsWith(dir.endsWith('/') ? dir : `${dir}/`)
}

/** True when `segments` begin with `entry`'s, each segment of the path read as a bash glob. */
function startsWith(segments: readonly string[], entry: readonly string[]): boolean {
  return segments.length >= entry.length && entry.every((e, k) => segmentMatches(segments[k], e))
}

function segmentMatches(glob: string, name: string): boolean {
  if (!/[*?[]/.test(glob)) return glob === name
  // bash's globs reach a dot file only when the pattern starts with a dot.
  if (name.startsWith('.') && !glob.startsWith('.')) return false
  return globRegExp(glob)?.test(name) ?? false
}

/** Names the secrets patterns stand for, to test a glob against (`.e*` reaches `.env`). */
const SAMPLE_SECRETS = SECRET_FILE_NAMES.map((g) => g.replace(/^\*/, 'server').replace(/\*/g, ''))

/**
 * A glob the shell would expand to a secrets file, when it says enough to aim at
 * one: `.e*`, `*.pe?`, `id_*`; not `*` or `*.*`, which list everything.
 */
function globReachesSecret(name: string): string | undefined {
  if (!/[*?[]/.test(name) || name.replace(/[*?]|\[[^\]]*\]/g, '').length < 2) return undefined
  const re = globRegExp(name)
  const hit = SAMPLE_SECRETS.find(
    (sample) => re?.test(sample) && (name.startsWith('.') || !sample.startsWith('.')),
  )
  return hit ? SECRETS.reason(hit) : undefined
}

/** A bash glob of one path segment as a regular expression (undefined when it is not one). */
function globRegExp(glob: string): RegExp | undefined {
  const source = glob.replace(/\[[^\]]*\]|[*?]|[^*?[]+/g, (part) =>
    part === '*'
      ? '[^/]*'
      : part === '?'
        ? '[^/]'
        : part.startsWith('[')
          ? part.replace(/^\[!/, '[^')
          : part.replace(/[.+^${}()|\\[\]]/g, '\\$&'),
  )
  try {
    return new RegExp(`^${source}$`)
  } catch {
    return undefined
  }
}

/** The file names a word may stand for: itself, after `=` (`--file=.env`), after `:` (`HEAD:.env`). */
function candidates(word: string): string[] {
  const parts = [word, word.slice(word.indexOf('=') + 1), word.slice(word.lastIndexOf(':') + 1)]
  return [...new Set(parts.map((p) => path.posix.basename(p.replace(/\/+$/, ''))))].filter(
    (b) => b !== '' && b !== '.' && b !== '..' && !b.includes('\0'),
  )
}

/** bash's brace expansion, enough for the deny rules: `{rm,-rf,x}` → `rm -rf x`, `a{b,c}` → `ab ac`. */
export function expandBraces(argv: readonly string[]): string[] {
  return argv.flatMap((word) => expandWord(word, 0))
}

function expandWord(word: string, depth: number): string[] {
  if (depth > 4) return [word]
  const open = word.indexOf('{')
  if (open < 0) return [word]
  let level = 0
  const commas: number[] = []
  for (let i = open; i < word.length; i++) {
    const c = word[i]
    if (c === '{') level++
    else if (c === '}' && --level === 0) {
      if (commas.length === 0) {
        // `{}` or `{x}` expands to itself; look further along.
        return expandWord(word.slice(i + 1), depth).map((rest) => word.slice(0, i + 1) + rest)
      }
      const bounds = [open, ...commas, i]
      const alternatives = bounds.slice(1).map((b, k) => word.slice(bounds[k] + 1, b))
      const prefix = word.slice(0, open)
      const suffix = word.slice(i + 1)
      return alternatives.flatMap((alt) => expandWord(prefix + alt + suffix, depth + 1)).slice(0, 64)
    } else if (c === ',' && level === 1) commas.push(i)
  }
  return [word]
}
