import path from 'node:path'
import { commandName } from './argv'
import { DEFAULT_DENY, createDenyList } from '../sandbox/denylist'

/*
 * Two readings of an argv the deny rules need besides the options: the words bash's
 * brace expansion makes (`{rm,-rf,x}` is `rm -rf x`), and operands that name a
 * secrets file (`cat .env`, `git show HEAD:.env`) — refused here as well as masked
 * in the sandbox, so the model learns why.
 */

/** The denylist's secrets patterns (not its folders such as `.git`, `node_modules/`, `dist/`). */
const SECRETS = createDenyList({ allowDeny: DEFAULT_DENY.filter((p) => p === '.git' || p.endsWith('/')) })

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

/** The first word of argv that names a secrets file, with the pattern it matches. */
export function secretOperand(argv: readonly string[]): { word: string; pattern: string } | null {
  const name = commandName(argv[0] ?? '')
  if (NO_READ.has(name)) return null
  if (name === 'git' && argv.slice(1).some((a) => GIT_NO_READ.has(a))) return null
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i]
    // `--exclude=.env`, `-g '!.env'`, `--exclude .env` keep a secret out; they do not read it.
    if (/^-.*(exclude|ignore)/i.test(word) || word.startsWith('!')) continue
    if (/^-.*(exclude|ignore)/i.test(argv[i - 1] ?? '') && !word.startsWith('-')) continue
    for (const candidate of candidates(word)) {
      const pattern = SECRETS.reason(candidate) ?? globReachesSecret(candidate)
      if (pattern) return { word, pattern }
    }
  }
  return null
}

/** Names the secrets patterns stand for, to test a glob against (`.e*` reaches `.env`). */
const SAMPLE_SECRETS = [
  '.env',
  '.env.local',
  'server.pem',
  'server.key',
  'id_rsa',
  'id_ed25519',
  'cert.p12',
  '.npmrc',
  '.netrc',
]

/**
 * A glob the shell would expand to a secrets file, when it says enough to aim at
 * one: `.e*`, `*.pe?`, `id_*`; not `*` or `*.*`, which list everything.
 */
function globReachesSecret(name: string): string | undefined {
  if (!/[*?[]/.test(name) || name.replace(/[*?]|\[[^\]]*\]/g, '').length < 2) return undefined
  const source = name.replace(/\[[^\]]*\]|[*?]|[^*?[]+/g, (part) =>
    part === '*'
      ? '[^/]*'
      : part === '?'
        ? '[^/]'
        : part.startsWith('[')
          ? part.replace(/^\[!/, '[^')
          : part.replace(/[.+^${}()|\\]/g, '\\$&'),
  )
  let re: RegExp
  try {
    re = new RegExp(`^${source}$`)
  } catch {
    return undefined
  }
  const hit = SAMPLE_SECRETS.find(
    (sample) => re.test(sample) && (name.startsWith('.') || !sample.startsWith('.')),
  )
  return hit ? SECRETS.reason(hit) : undefined
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
