import fs from 'node:fs'
import path from 'node:path'
import { pushAll } from '../../shared/arrays'
import { anyOfLiterals } from '../../shared/regexp'

/*
 * Secret values taken out of every command's output before it reaches the model,
 * the timeline or the store. The sandbox masks secret files, but a value can still
 * come back another way (`git grep KEY HEAD` prints a committed `.env`, a test
 * prints its config). Known values are replaced by `[REDACTED:<name>]`: those of
 * the project's secret files and of the host process's secret-looking variables.
 * One combined regular expression, one pass over the text.
 */

export interface SecretValue {
  name: string
  value: string
}

/** Values shorter than this are not secrets worth hiding (and would redact common words). */
export const MIN_SECRET_LENGTH = 8

/** Variable names that hold credentials. */
const SECRET_VAR =
  /(^|_)(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PAT|CREDENTIALS?|AUTH)$|PASSWORD|SECRET|API_?KEY|^AWS_/i
/** AWS_* settings that are not secrets (redacting a region would garble every log line naming it). */
const NOT_SECRET_VAR =
  /^AWS_(REGION|DEFAULT_REGION|PROFILE|DEFAULT_OUTPUT|CONFIG_FILE|SHARED_CREDENTIALS_FILE)$/

/** `user:password@` in a URL-valued variable (DATABASE_URL). */
const URL_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:([^@/\s]+)@/i

/** Secret-looking variables of `env` and passwords inside URL-valued ones. */
export function envSecrets(env: NodeJS.ProcessEnv): SecretValue[] {
  const out: SecretValue[] = []
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue
    if (SECRET_VAR.test(name) && !NOT_SECRET_VAR.test(name)) out.push({ name, value })
    const url = URL_PASSWORD.exec(value)
    if (url) out.push({ name: `${name} password`, value: safeDecode(url[1]) }, { name, value: url[1] })
  }
  return out.filter((s) => s.value.length >= MIN_SECRET_LENGTH)
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/** Secret files bigger than this are not read (a key or a dotenv is small). */
const MAX_SECRET_FILE = 256 * 1024

/** The values a secret file holds: dotenv values, or the non-trivial lines of a key/certificate. */
export function fileSecrets(file: string, text: string): SecretValue[] {
  const base = path.basename(file)
  const out: SecretValue[] = []
  // Letter case aside, as the denylist matches them (`.ENV` is the file dotenv loads on macOS).
  const dotenv = /^\.env(\..*|rc)?$|\.env$|\.(npmrc|netrc|pypirc)$|^\.(npmrc|netrc|pypirc)$/i.test(base)
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    if (dotenv) {
      // KEY=VALUE, `export KEY="VALUE"`, npmrc `//host/:_authToken=…`, netrc `password X`.
      const kv = /^(?:export\s+)?([^=\s]+)\s*=\s*(.*)$/.exec(line)
      const netrc = /\bpassword\s+(\S+)/.exec(line)
      if (kv) out.push({ name: kv[1], value: unquote(kv[2]) })
      else if (netrc) out.push({ name: base, value: netrc[1] })
    } else if (!/^-----(BEGIN|END) /.test(line)) out.push({ name: base, value: line })
  }
  return out.filter((s) => s.value.length >= MIN_SECRET_LENGTH)
}

function unquote(v: string): string {
  const m = /^(["'])(.*)\1\s*(#.*)?$/.exec(v)
  if (m) return m[2]
  return v.replace(/\s+#.*$/, '')
}

export class Redactor {
  /** Longest value: a streamed chunk keeps this many characters less one back, in case one is split. */
  readonly maxLength: number
  private readonly re: RegExp | null
  private readonly names = new Map<string, string>()
  /** Every proper prefix of every value: an output ending in one may continue with the rest. */
  private readonly prefixes = new Set<string>()

  constructor(secrets: readonly SecretValue[]) {
    for (const s of secrets) if (!this.names.has(s.value)) this.names.set(s.value, s.name)
    // Longest first, so a value containing another is replaced whole.
    const values = [...this.names.keys()].sort((a, b) => b.length - a.length)
    this.maxLength = values[0]?.length ?? 0
    for (const v of values) for (let i = 1; i < v.length; i++) this.prefixes.add(v.slice(0, i))
    this.re = values.length ? anyOfLiterals(values, 'g') : null
  }

  get empty(): boolean {
    return this.re === null
  }

  redact(text: string): string {
    if (!this.re) return text
    return text.replace(this.re, (v) => `[REDACTED:${this.names.get(v)}]`)
  }

  /**
   * Redacts `text` that continues a stream: returns what can go out now and what
   * must wait for the next piece — only an end that could be the start of a value
   * split across two pieces (so ordinary output is never held). `final` flushes.
   */
  redactStream(text: string, final: boolean): { out: string; keep: string } {
    if (!this.re) return { out: text, keep: '' }
    let cut = text.length
    if (!final)
      for (let k = Math.min(this.maxLength - 1, text.length); k > 0; k--)
        if (this.prefixes.has(text.slice(-k))) {
          cut = text.length - k
          break
        }
    let out = ''
    let at = 0
    this.re.lastIndex = 0
    for (let m = this.re.exec(text); m; m = this.re.exec(text)) {
      // A match in the end held back may be the start of a longer value: it waits too.
      if (m.index >= cut) break
      out += text.slice(at, m.index) + `[REDACTED:${this.names.get(m[0])}]`
      at = m.index + m[0].length
    }
    cut = Math.max(cut, at)
    return { out: out + text.slice(at, cut), keep: text.slice(cut) }
  }
}

interface Cached {
  fingerprint: string
  secrets: SecretValue[]
}

/** Per secret-file list: the values read from them, kept while their sizes and mtimes stay the same. */
const fileCache = new Map<string, Cached>()

/** The values of the given secret files, read once per fingerprint (paths, sizes, mtimes). */
export function secretFileValues(files: readonly string[]): SecretValue[] {
  const stats = files.map((f) => {
    try {
      const st = fs.statSync(f)
      return st.isFile() ? st : null
    } catch {
      return null
    }
  })
  const fingerprint = files.map((f, i) => `${f}:${stats[i]?.size}:${stats[i]?.mtimeMs}`).join('\n')
  const key = files.join('\n')
  const cached = fileCache.get(key)
  if (cached && cached.fingerprint === fingerprint) return cached.secrets
  const secrets: SecretValue[] = []
  files.forEach((f, i) => {
    const st = stats[i]
    if (!st || st.size > MAX_SECRET_FILE) return
    try {
      pushAll(secrets, fileSecrets(f, fs.readFileSync(f, 'utf8')))
    } catch {
      // unreadable to us: not printable by the command either
    }
  })
  if (fileCache.size > 32) fileCache.clear()
  fileCache.set(key, { fingerprint, secrets })
  return secrets
}
