import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import type { McpSource } from '../../shared/protocol'
import {
  isStdio,
  parseEntry,
  type EntryOptions,
  type HttpServerConfig,
  type StdioServerConfig,
} from './config-entry'
import { digestOf, projectServerFiles, type FileDigests } from './project-files'
import { errnoCode, errorMessage } from '../../shared/errors'

/*
 * MCP server configuration in the shape users already have from Claude Code, Cursor
 * and Cline: `{"mcpServers": {"NAME": {command, args, env, cwd} | {url, headers}}}`.
 * Sources: the user's `mcp.json` in the data folder, `--mcp-config FILE` (repeatable),
 * and a project's `.mcp.json` once the user approved that exact file (config/approval.ts).
 */

/** `mcpServers` (Claude Code, Cursor, Cline, Claude Desktop) or `servers` (VS Code's `mcp.json`). */
/** `mcpServers`, or VS Code's `servers` when that is absent or not an object. */
const serverTable = z.record(z.string(), z.unknown()).optional().catch(undefined)
const configFile = z.object({ mcpServers: serverTable, servers: serverTable })

export type { StdioServerConfig, HttpServerConfig } from './config-entry'
export { isStdio } from './config-entry'

export interface McpServerConfig {
  name: string
  source: McpSource
  /** The file it came from, for messages. */
  file: string
  spec: StdioServerConfig | HttpServerConfig
  /** What the entry's other keys mean here: off by default, tools allowed, the call timeout. */
  options?: EntryOptions
}

/** Server names become part of tool names (`mcp__NAME__TOOL`): letters, digits, `_` and `-`. */
const NAME = /^[A-Za-z0-9_-]{1,64}$/

export interface LoadedConfig {
  servers: McpServerConfig[]
  /** One message per problem, each naming the file (and the server) and what is wrong. */
  errors: string[]
  /** Keys ignored (written for another client), one message per server naming them. */
  warnings: string[]
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
    return { servers: [], errors: [`${file}: not valid JSON (${errorMessage(err)}).`], warnings: [] }
  }
  const top = configFile.safeParse(json)
  const entries = top.success ? (top.data.mcpServers ?? top.data.servers) : undefined
  if (!entries)
    return {
      servers: [],
      errors: [
        `${file}: expected {"mcpServers": {"NAME": {"command": …} or {"url": …}}} (or VS Code's "servers").`,
      ],
      warnings: [],
    }
  const servers: McpServerConfig[] = []
  const errors: string[] = []
  const warnings: string[] = []
  for (const [name, raw] of Object.entries(entries)) {
    if (!NAME.test(name)) {
      errors.push(
        `${file}: server name "${name}" may only hold letters, digits, "_" and "-" (up to 64 characters).`,
      )
      continue
    }
    const parsed = parseEntry(raw)
    if (!parsed.ok) {
      errors.push(`${file}: server "${name}": ${parsed.error}`)
      continue
    }
    if (parsed.ignored.length > 0)
      warnings.push(
        `${file}: server "${name}": ignored ${parsed.ignored.map((k) => `"${k}"`).join(', ')} (not used by Stepwise).`,
      )
    const server: McpServerConfig = { name, source, file, spec: parsed.spec }
    if (Object.keys(parsed.options).length > 0) server.options = parsed.options
    servers.push(server)
  }
  return { servers, errors, warnings }
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
    if (opts.optional && errnoCode(err) === 'ENOENT') return { servers: [], errors: [], warnings: [] }
    return { servers: [], errors: [`${file}: cannot be read (${errorMessage(err)}).`], warnings: [] }
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
