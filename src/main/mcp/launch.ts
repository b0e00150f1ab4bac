import fs from 'node:fs'
import path from 'node:path'
import { SandboxRefusal, bwrapArgs } from '../sandboxing/bwrap'
import { childEnv } from '../sandboxing/env'
import { sandboxStatus } from '../sandboxing/sandbox-probe'
import { serverFileBinds } from './server-files'
import type { HttpServerConfig, McpServerConfig, StdioServerConfig } from './config'

/*
 * How a stdio server is started: its environment is the commands' allowlist (sandboxing/env.ts)
 * plus the `env` its config names — never the user's whole environment with API keys;
 * with `"sandbox": true` it runs inside the command sandbox (bwrap: the project
 * writable, the rest read-only, no network unless `"network": true`).
 */

export interface StdioLaunch {
  command: string
  args: string[]
  env: Record<string, string>
  cwd: string
  /** Set when the config asked for the sandbox and it is not available here. */
  refused?: string
}

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

/**
 * `${VAR}` and `${VAR:-default}` in a user's or the CLI's config read the user's environment (how
 * users pass a token on); in a project's `.mcp.json` they stay literal, so a cloned repository
 * cannot name a key it would like to receive. `missing` collects the variables that were unset
 * and had no default (they expand to "").
 */
export function expandEnv(
  value: string,
  source: McpServerConfig['source'],
  env: NodeJS.ProcessEnv,
  missing?: Set<string>,
): string {
  if (source === 'project') return value
  return value.replace(VAR, (_, name: string, fallback: string | undefined) => {
    const set = env[name]
    if (set !== undefined && (set !== '' || fallback === undefined)) return set
    if (fallback !== undefined) return fallback
    missing?.add(name)
    return ''
  })
}

export interface HttpTarget {
  url: URL
  headers: Record<string, string>
}

/**
 * The URL and headers of an HTTP server with the environment expanded (user's and CLI files
 * only). A variable that is unset and has no default is refused with its name: sending
 * `Authorization: Bearer ` with an empty token would only earn a puzzling 401.
 */
export function httpTarget(
  server: McpServerConfig & { spec: HttpServerConfig },
  env: NodeJS.ProcessEnv,
): HttpTarget {
  const missing = new Set<string>()
  const url = expandEnv(server.spec.url, server.source, env, missing)
  const headers = Object.fromEntries(
    Object.entries(server.spec.headers).map(([k, v]) => [k, expandEnv(v, server.source, env, missing)]),
  )
  if (missing.size > 0)
    throw new Error(
      `its url or headers in ${server.file} name ${[...missing].map((n) => `\${${n}}`).join(', ')}, not set in your environment; set ${missing.size > 1 ? 'them' : 'it'} or write \${NAME:-default}`,
    )
  try {
    return { url: new URL(url), headers }
  } catch {
    throw new Error(`its url "${url}" (after \${VAR} expansion) is not a valid URL`)
  }
}

export function stdioLaunch(
  server: McpServerConfig & { spec: StdioServerConfig },
  repo: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): StdioLaunch {
  const { spec } = server
  const own = Object.fromEntries(
    Object.entries(spec.env).map(([k, v]) => [k, expandEnv(v, server.source, env)]),
  )
  const base = repo ?? process.cwd()
  const cwd = spec.cwd ? path.resolve(base, expandEnv(spec.cwd, server.source, env)) : base
  const childEnvironment = { ...childEnv(env), ...own }
  if (!spec.sandbox) return { command: spec.command, args: spec.args, env: childEnvironment, cwd }
  const status = sandboxStatus()
  if (!status.available)
    return {
      command: spec.command,
      args: spec.args,
      env: childEnvironment,
      cwd,
      refused: `its config asks for the sandbox ("sandbox": true), which is not available here: ${status.reason ?? status.summary}`,
    }
  const root = repo ?? cwd
  let wrapped: string[]
  try {
    wrapped = bwrapArgs({
      root,
      network: spec.network ?? false,
      userns: status.userns,
      disableNestedUserns: status.disableNestedUserns,
    })
  } catch (err) {
    // The project cannot be masked whole (too big a tree, too many hard links): say so, as for commands.
    if (!(err instanceof SandboxRefusal)) throw err
    return { command: spec.command, args: spec.args, env: childEnvironment, cwd, refused: err.message }
  }
  return {
    command: 'bwrap',
    args: [...wrapped, ...serverFileBinds(spec, cwd, root), '--chdir', cwd, '--', spec.command, ...spec.args],
    env: childEnvironment,
    cwd,
  }
}

/** Each server's stderr goes to its own log in the data folder, which the app can show. */
export function logPath(dataDir: string, server: string): string {
  return path.join(dataDir, 'mcp-logs', `${server}.log`)
}

const MAX_LOG = 1024 * 1024

/** Opens the log for appending; a log over 1 MB is moved to `.1` first (one old generation kept). */
export function openLog(file: string): fs.WriteStream {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  try {
    if (fs.statSync(file).size > MAX_LOG) fs.renameSync(file, `${file}.1`)
  } catch {
    // No log yet.
  }
  const log = fs.createWriteStream(file, { flags: 'a', mode: 0o600 })
  // The file opens later, off this call: a folder removed or a disk full by then must cost the
  // server's log, never the app (an 'error' with no listener is an uncaught exception).
  log.on('error', () => undefined)
  return log
}

/** Ends a log and waits until its file is closed, so nothing writes to the folder afterwards. */
export async function closeLog(log: fs.WriteStream): Promise<void> {
  if (log.closed) return
  // Not `events.once`: that rejects on the 'error' a failed log emits before it closes.
  const closed = new Promise<void>((resolve) => log.once('close', () => resolve()))
  log.end()
  await closed
}

export function readLogTail(file: string, maxBytes = 16 * 1024): string {
  let fd: number
  try {
    fd = fs.openSync(file, 'r')
  } catch {
    return ''
  }
  try {
    const size = fs.fstatSync(fd).size
    const length = Math.min(size, maxBytes)
    const buffer = Buffer.alloc(length)
    fs.readSync(fd, buffer, 0, length, size - length)
    return buffer.toString('utf8')
  } finally {
    fs.closeSync(fd)
  }
}
