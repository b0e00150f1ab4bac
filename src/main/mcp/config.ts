import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import type { McpSource } from '../../shared/protocol'
import { digestOf, projectServerFiles, type FileDigests } from './project-files'

/*
 * MCP server configuration in the shape users already have from Claude Code, Cursor
 * and Cline: `{"mcpServers": {"NAME": {command, args, env, cwd} | {url, headers}}}`.
 * Sources: the user's `mcp.json` in the data folder, `--mcp-config FILE` (repeatable),
 * and a project's `.mcp.json` once the user approved that exact file (config/approval.ts).
 */

const stdioServer = z
  .object({
    type: z.literal('stdio').optional(),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
    /** Run inside the command sandbox (bwrap): project writable, the rest read-only, no network. */
    sandbox: z.boolean().default(false),
    /** Also let it reach the network inside the sandbox. */
    network: z.boolean().optional(),
  })
  .strict()

const httpServer = z
  .object({
    type: z.enum(['http', 'streamable-http', 'streamableHttp', 'sse']).optional(),
    url: z.string().url(),
    headers: z.record(z.string(), z.string()).default({}),
  })
  .strict()

const serverEntry = z.union([stdioServer, httpServer])

const configFile = z.object({ mcpServers: z.record(z.string(), z.unknown()) })

export type StdioServerConfig = z.infer<typeof stdioServer>
export type HttpServerConfig = z.infer<typeof httpServer>

export interface McpServerConfig {
  name: string
  source: McpSource
  /** The file it came from, for messages. */
  file: string
  spec: StdioServerConfig | HttpServerConfig
}

export function isStdio(spec: McpServerConfig['spec']): spec is StdioServerConfig {
  return 'command' in spec
}

/** Server names become part of tool names (`mcp__NAME__TOOL`): letters, digits, `_` and `-`. */
const NAME = /^[A-Za-z0-9_-]{1,64}$/

export interface LoadedConfig {
  servers: McpServerConfig[]
  /** One message per problem, each naming the file (and the server) and what is wrong. */
  errors: string[]
}

/** The user's own configuration file. */
export function userConfigPath(dataDir: string): string {
  return path.join(dataDir, 'mcp.json')
}

export function projectConfigPath(repo: string): string {
  return path.join(repo, '.mcp.json')
}

export function hashText(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/**
 * Parses one configuration file. A missing optional file is no error; a file that is
 * not JSON or not in the expected shape is, and a bad server entry spoils only itself.
 */
export function parseConfigText(text: string, file: string, source: McpSource): LoadedConfig {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    return { servers: [], errors: [`${file}: not valid JSON (${(err as Error).message}).`] }
  }
  const top = configFile.safeParse(json)
  if (!top.success)
    return {
      servers: [],
      errors: [`${file}: expected {"mcpServers": {"NAME": {"command": …} or {"url": …}}}.`],
    }
  const servers: McpServerConfig[] = []
  const errors: string[] = []
  for (const [name, raw] of Object.entries(top.data.mcpServers)) {
    if (!NAME.test(name)) {
      errors.push(
        `${file}: server name "${name}" may only hold letters, digits, "_" and "-" (up to 64 characters).`,
      )
      continue
    }
    const parsed = serverEntry.safeParse(raw)
    if (!parsed.success) {
      errors.push(`${file}: server "${name}": ${describeEntryProblem(raw, parsed.error)}`)
      continue
    }
    servers.push({ name, source, file, spec: parsed.data })
  }
  return { servers, errors }
}

function describeEntryProblem(raw: unknown, error: z.ZodError): string {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return 'expected an object.'
  const entry = raw as Record<string, unknown>
  if (!('command' in entry) && !('url' in entry)) return 'needs "command" (stdio) or "url" (HTTP).'
  const schema = 'command' in entry ? stdioServer : httpServer
  const again = schema.safeParse(raw)
  const issues = again.success ? error.issues : again.error.issues
  return issues.map((i) => `${i.path.length ? `"${i.path.join('.')}"` : 'entry'}: ${i.message}`).join('; ')
}

export function loadConfigFile(
  file: string,
  source: McpSource,
  opts: { optional?: boolean } = {},
): LoadedConfig {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (err) {
    if (opts.optional && (err as NodeJS.ErrnoException).code === 'ENOENT') return { servers: [], errors: [] }
    return { servers: [], errors: [`${file}: cannot be read (${(err as Error).message}).`] }
  }
  return parseConfigText(text, file, source)
}

/**
 * A project's `.mcp.json` as it is now: the servers it declares, and what approving it covers —
 * the file and the project files its servers run (./project-files.ts), one hash over all of them.
 */
export interface ProjectConfig {
  path: string
  /** sha256 over `files`: what an approval stores and `mcp/approveProject` sends back. */
  hash: string
  /** `.mcp.json` and each project file its servers' command lines resolve to, with its hash. */
  files: FileDigests
  loaded: LoadedConfig
}

export function readProjectConfig(repo: string, env: NodeJS.ProcessEnv = process.env): ProjectConfig | null {
  const file = projectConfigPath(repo)
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {
    return null
  }
  const loaded = parseConfigText(text, file, 'project')
  const files = projectServerFiles(loaded.servers, repo, hashText(text), env)
  return { path: file, hash: digestOf(files), files, loaded }
}

/**
 * Merges the sources: later ones override a server of the same name (the CLI's files
 * over the user's; a project's file never overrides a server the user configured).
 */
export function mergeServers(
  user: McpServerConfig[],
  cli: McpServerConfig[],
  project: McpServerConfig[],
): McpServerConfig[] {
  const byName = new Map<string, McpServerConfig>()
  for (const server of [...user, ...cli]) byName.set(server.name, server)
  for (const server of project) if (!byName.has(server.name)) byName.set(server.name, server)
  return [...byName.values()]
}

/** The command line or URL, for display. */
export function describeTarget(spec: McpServerConfig['spec']): string {
  if (!isStdio(spec)) return spec.url
  return [spec.command, ...spec.args]
    .map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : JSON.stringify(w)))
    .join(' ')
}
