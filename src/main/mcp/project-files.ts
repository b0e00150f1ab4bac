import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { isInsideResolved } from '../containment/paths'
import { isStdio, type HttpServerConfig, type StdioServerConfig } from './config-entry'

/*
 * What approving a project's `.mcp.json` covers. Its text alone is not enough: `sh
 * tools/mcp-server.sh` runs whatever that script holds at the next start, and the agent may
 * write the project (a changed script ran outside the sandbox in an attack on this app). So the
 * approval records, for each of the file's stdio servers, the files inside the project that its
 * command line resolves to, each with its content hash:
 * - the program, when it is a path (`./bin/server`) or found on PATH inside the project;
 * - every argument, or `--option=value` value, naming an existing file (`server.js`,
 *   `tools/mcp-server.sh`, `--require=./hook.js`), and those naming a missing path that looks like
 *   a file (so creating it later asks again);
 * - for a file inside `node_modules`, its whole package folder (`node_modules/NAME` or
 *   `node_modules/@SCOPE/NAME`), and for `npx NAME`, the project's installed package NAME.
 * Paths are resolved through links; what lies outside the project is not the project's to change.
 * A script's own imports outside node_modules are not followed: `"sandbox": true` is the answer
 * for a server whose code the agent may edit (docs/mcp.md).
 */

/** Project-relative path → `sha256:HEX`, `missing`, or for a huge package folder `stat:HEX`. */
export type FileDigests = Record<string, string>

/** A package folder past these is covered by its files' sizes and times instead of their bytes. */
const FOLDER_MAX_FILES = 5000
const FOLDER_MAX_BYTES = 64 * 1024 * 1024

/** A name with a file extension (`server.py`, not `stdio` or `pkg@1.2.3`). */
const LOOKS_LIKE_FILE = /\.[A-Za-z][A-Za-z0-9]{0,7}$/

/** The covered files of every project stdio server, plus `.mcp.json` itself (`textHash`). */
export function projectServerFiles(
  servers: ReadonlyArray<{ spec: StdioServerConfig | HttpServerConfig }>,
  repo: string,
  textHash: string,
  env: NodeJS.ProcessEnv = process.env,
): FileDigests {
  const root = realOrSelf(repo)
  const out: FileDigests = { '.mcp.json': `sha256:${textHash}` }
  for (const { spec } of servers) {
    if (!isStdio(spec)) continue
    const { command, args, cwd: ownCwd, env: own } = spec
    const cwd = ownCwd ? path.resolve(root, ownCwd) : root
    // A project's `env` may set PATH itself (its values are taken literally, ./launch.ts).
    const searchPath = own?.PATH ?? env.PATH ?? ''
    const named = [
      ...(command.includes('/') ? [path.resolve(cwd, command)] : onPath(command, searchPath, cwd)),
      ...args
        .flatMap((a) => [a, ...(a.startsWith('-') && a.includes('=') ? [a.slice(a.indexOf('=') + 1)] : [])])
        .filter((a) => a !== '' && !a.startsWith('-'))
        .map((a) => path.resolve(cwd, a)),
      ...npxPackages(command, args, cwd, root),
    ]
    for (const file of named) cover(file, root, out)
  }
  return out
}

/** One hash for the whole record: what `approvedProjects` stores and `mcp/approveProject` sends back. */
export function digestOf(files: FileDigests): string {
  const lines = Object.keys(files)
    .sort()
    .map((k) => `${k}\t${files[k]}`)
  return createHash('sha256').update(lines.join('\n')).digest('hex')
}

/** What differs between the approved record and now, one phrase per path, for messages. */
export function describeChanges(approved: FileDigests, now: FileDigests): string[] {
  const out: string[] = []
  for (const p of [...new Set([...Object.keys(approved), ...Object.keys(now)])].sort()) {
    const was = approved[p]
    const is = now[p]
    if (was === is) continue
    if (was === undefined) out.push(is === 'missing' ? `${p} (now named, missing)` : `${p} (new)`)
    else if (is === undefined) out.push(`${p} (no longer run)`)
    else if (is === 'missing') out.push(`${p} (deleted)`)
    else if (was === 'missing') out.push(`${p} (created)`)
    else out.push(`${p} (changed)`)
  }
  return out
}

function cover(file: string, root: string, out: FileDigests): void {
  const lexical = path.resolve(file)
  let real: string
  try {
    real = fs.realpathSync(lexical)
  } catch {
    // A missing path inside the project that looks like a file: creating it must ask again.
    if (isInsideResolved(root, lexical) && LOOKS_LIKE_FILE.test(path.basename(lexical)))
      out[rel(root, lexical)] ??= 'missing'
    return
  }
  if (!isInsideResolved(root, real) || real === root) return
  const pkg = packageFolder(real, root)
  if (pkg) coverFolder(pkg, root, out)
  else if (fs.statSync(real).isFile()) out[rel(root, real)] = `sha256:${hashFile(real)}`
}

/** `node_modules/NAME` or `node_modules/@SCOPE/NAME` holding `real`, if any. */
function packageFolder(real: string, root: string): string | undefined {
  const parts = rel(root, real).split('/')
  const at = parts.lastIndexOf('node_modules')
  if (at < 0 || at + 1 >= parts.length) return undefined
  const end = parts[at + 1].startsWith('@') ? at + 3 : at + 2
  if (end > parts.length) return undefined
  return path.join(root, ...parts.slice(0, end))
}

function coverFolder(folder: string, root: string, out: FileDigests): void {
  const key = `${rel(root, folder)}/`
  if (Object.keys(out).some((k) => k === key || k.startsWith(key))) return
  const files = listFolder(folder)
  const bytes = files.reduce((n, f) => n + f.size, 0)
  if (files.length > FOLDER_MAX_FILES || bytes > FOLDER_MAX_BYTES) {
    const stats = files.map((f) => `${f.path}\t${f.size}\t${f.mtimeMs}`).join('\n')
    out[key] = `stat:${createHash('sha256').update(stats).digest('hex')}`
    return
  }
  for (const f of files)
    out[rel(root, f.path)] = f.link === undefined ? `sha256:${hashFile(f.path)}` : `link:${f.link}`
}

interface Listed {
  path: string
  size: number
  mtimeMs: number
  link?: string
}

function listFolder(folder: string): Listed[] {
  const out: Listed[] = []
  const walk = (dir: string): void => {
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.isSymbolicLink()) out.push({ path: p, size: 0, mtimeMs: 0, link: fs.readlinkSync(p) })
      else if (e.isFile()) {
        const st = fs.statSync(p)
        out.push({ path: p, size: st.size, mtimeMs: st.mtimeMs })
      }
    }
  }
  walk(folder)
  return out
}

/** `npx [options] NAME[@version]` runs the project's installed NAME when there is one. */
function npxPackages(command: string, args: readonly string[], cwd: string, root: string): string[] {
  if (path.basename(command) !== 'npx') return []
  const spec = args.find((a) => !a.startsWith('-'))
  if (!spec) return []
  const name = spec.replace(/(?<=.)@[^/]*$/, '')
  const found: string[] = []
  for (let d = cwd; isInsideResolved(root, d); d = path.dirname(d)) {
    const pkg = path.join(d, 'node_modules', name, 'package.json')
    if (fs.existsSync(pkg)) found.push(pkg)
    if (d === root) break
  }
  return found
}

function onPath(command: string, searchPath: string, cwd: string): string[] {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue
    const p = path.resolve(cwd, dir, command)
    try {
      if (fs.statSync(p).isFile()) return [p]
    } catch {
      // Not in this folder.
    }
  }
  return []
}

function hashFile(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex')
}

function realOrSelf(p: string): string {
  try {
    return fs.realpathSync(p)
  } catch {
    return path.resolve(p)
  }
}

function rel(root: string, p: string): string {
  return path.relative(root, p).split(path.sep).join('/')
}
