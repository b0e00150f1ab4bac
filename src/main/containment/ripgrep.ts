import { spawn } from 'node:child_process'
import os from 'node:os'
import { rgPath } from '@vscode/ripgrep'

/**
 * Flags shared by listing and search, so both see exactly the same files: hidden
 * files included, `.gitignore` honoured with or without a git repo, and nothing
 * else (no user config, no global excludes, no `.ignore`, no parent directories'
 * rules) so the answer does not depend on the machine. Denied patterns go last,
 * because a later glob wins in ripgrep, and as `--iglob`: `-g` is case-sensitive, and
 * `.ENV` or `Server.PEM` is as secret as `.env` (the gate filters the output again).
 * `messages: true` keeps ripgrep's reasons for paths it could not read on stderr (a search
 * reports them: see unreadablePaths); listing drops them.
 */
export function ripgrepFilterArgs(
  denyPatterns: readonly string[],
  opts: { messages?: boolean } = {},
): string[] {
  const args = [
    '--hidden',
    '--no-require-git',
    '--no-config',
    '--no-ignore-parent',
    '--no-ignore-dot',
    '--no-ignore-global',
    '--no-ignore-exclude',
  ]
  if (!opts.messages) args.push('--no-messages')
  for (const pattern of denyPatterns) args.push('--iglob', '!' + pattern)
  return args
}

export interface RipgrepRun {
  /** ripgrep's exit code, or null when it was stopped early. */
  code: number | null
  stderr: string
  /** True when `onLine` asked to stop (or the signal aborted) before ripgrep finished. */
  stopped: boolean
}

/** The most of ripgrep's stderr kept: enough for a few dozen reasons about paths of PATH_MAX bytes. */
const MAX_STDERR_CHARS = 64 * 1024

/** The most characters of one path shown in a reason; longer ones keep their start and end. */
const SHOWN_PATH_CHARS = 240

/** A path ripgrep could not read or list, and why, in ripgrep's (the OS's) words. */
export interface UnreadablePath {
  path: string
  reason: string
}

/**
 * The paths ripgrep could not read, from its messages on stderr: `rg: PATH: REASON (os error N)`,
 * or `rg: PATH: IO error for operation on PATH: REASON (os error N)` for a folder it could not list.
 * Other messages (a bad regex, "No files were searched") are not about a path and are left out.
 */
export function unreadablePaths(stderr: string): UnreadablePath[] {
  const found: UnreadablePath[] = []
  for (const line of stderr.split('\n')) {
    const m = /^rg: (.+?): (?:IO error for operation on .+?: )?([^:]+ \(os error \d+\))$/.exec(line)
    if (m) found.push({ path: shortPath(m[1].replace(/^\.\//, '')), reason: m[2] })
  }
  return found
}

/** A path cut in the middle when long (a path past PATH_MAX is over 4,000 characters). */
function shortPath(p: string): string {
  if (p.length <= SHOWN_PATH_CHARS) return p
  const keep = SHOWN_PATH_CHARS / 2
  return `${p.slice(0, keep)}…[${p.length} characters]…${p.slice(-keep)}`
}

/** The most of one output line kept (a 143 MB one-line match was held whole, three times over). */
export const MAX_LINE_BYTES = 2 * 1024 * 1024

/**
 * Runs ripgrep in `cwd`, handing each stdout line (bytes, without its newline) to
 * `onLine` as it streams in; `onLine` returns false to stop, which kills ripgrep at once.
 * Lines stay bytes: a minified file's matching line can be megabytes long, and the
 * caller usually wants a small window of it, not the whole line decoded. A line is
 * cut at MAX_LINE_BYTES, so memory stays bounded whatever ripgrep prints (callers
 * that show lines ask ripgrep for less: `--max-columns`).
 */
export function runRipgrep(
  args: readonly string[],
  opts: { cwd: string; signal?: AbortSignal; onLine: (line: Buffer) => boolean },
): Promise<RipgrepRun> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return resolve({ code: null, stderr: '', stopped: true })
    const child = spawn(rgPath, args, { cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    // The start of an unfinished line, kept as chunks: only new bytes are scanned for
    // a newline, so a long line costs one pass, not one per chunk.
    let pending: Buffer[] = []
    let stderr = ''
    let settled = false

    const finish = (result: RipgrepRun) => {
      if (settled) return
      settled = true
      opts.signal?.removeEventListener('abort', onAbort)
      resolve(result)
    }
    const stop = () => {
      child.stdout.removeAllListeners('data')
      child.kill('SIGKILL')
      finish({ code: null, stderr, stopped: true })
    }
    const onAbort = () => stop()
    opts.signal?.addEventListener('abort', onAbort, { once: true })

    // At most MAX_LINE_BYTES of a line are kept; the rest of it is dropped as it streams in.
    let pendingBytes = 0
    const keep = (part: Buffer) => {
      const room = MAX_LINE_BYTES - pendingBytes
      if (room <= 0) return
      const kept = part.length > room ? part.subarray(0, room) : part
      pending.push(kept)
      pendingBytes += kept.length
    }
    child.stdout.on('data', (chunk: Buffer) => {
      let start = 0
      for (let end = chunk.indexOf(10); end >= 0; end = chunk.indexOf(10, start)) {
        keep(chunk.subarray(start, end))
        const line = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes)
        pending = []
        pendingBytes = 0
        start = end + 1
        if (!opts.onLine(line)) return stop()
      }
      if (start < chunk.length) keep(chunk.subarray(start))
    })
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < MAX_STDERR_CHARS) stderr += chunk
    })
    child.on('error', (err) => {
      if (settled) return
      settled = true
      reject(err)
    })
    child.on('close', (code) => {
      if (pending.length > 0 && !settled) {
        const last = Buffer.concat(pending)
        pending = []
        if (!opts.onLine(last)) return finish({ code: null, stderr, stopped: true })
      }
      finish({ code, stderr, stopped: false })
    })
  })
}

/**
 * Collects ripgrep's stdout lines, stopping once more than `maxLines` arrived.
 * The fast path for listing: no per-line work while ripgrep runs, one split at the end.
 */
export function collectRipgrepLines(
  args: readonly string[],
  opts: { cwd: string; signal?: AbortSignal; maxLines?: number; nice?: number },
): Promise<{ lines: string[]; truncated: boolean; stderr: string }> {
  const maxLines = opts.maxLines ?? Number.POSITIVE_INFINITY
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return resolve({ lines: [], truncated: true, stderr: '' })
    const child = spawn(rgPath, args, { cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    lowerPriority(child.pid, opts.nice)
    const chunks: Buffer[] = []
    // ripgrep's reasons for paths it could not list (none without `--no-messages` left out), bounded.
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < MAX_STDERR_CHARS) stderr += chunk.toString('utf8')
    })
    let newlines = 0
    let settled = false

    const finish = (truncated: boolean) => {
      if (settled) return
      settled = true
      opts.signal?.removeEventListener('abort', onAbort)
      const text = Buffer.concat(chunks).toString('utf8')
      const lines = text === '' ? [] : text.split('\n')
      if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop()
      if (lines.length > maxLines) {
        lines.length = maxLines
        truncated = true
      }
      resolve({ lines, truncated, stderr })
    }
    const stop = (truncated: boolean) => {
      child.stdout.removeAllListeners('data')
      child.kill('SIGKILL')
      finish(truncated)
    }
    const onAbort = () => stop(true)
    opts.signal?.addEventListener('abort', onAbort, { once: true })

    child.stdout.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      if (maxLines === Number.POSITIVE_INFINITY) return
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) newlines++
      if (newlines > maxLines) stop(true)
    })
    child.on('error', (err) => {
      if (settled) return
      settled = true
      reject(err)
    })
    child.on('close', () => finish(false))
  })
}

/**
 * A background listing's ripgrep yields the cores to the agent loop (a session's index build lists
 * 72,000 files while its first steps run). Set right after the spawn, on the process's first
 * thread: a sorted listing (`--sort path`) walks on that one thread. Best effort: where the system
 * refuses, it runs at normal priority.
 */
function lowerPriority(pid: number | undefined, nice: number | undefined): void {
  if (pid === undefined || !nice || nice <= 0) return
  try {
    os.setPriority(pid, Math.min(19, nice))
  } catch {
    // gone already, or not allowed: normal priority
  }
}
