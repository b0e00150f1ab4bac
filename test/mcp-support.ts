/**
 * Shared parts of the MCP end-to-end tests: the reference servers' command lines, a
 * config file writer, and one `stepwise edit` session with the fake model scripting
 * calls to MCP tools.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { committedRepo, editArgs, ROOT, runCli, type CliResult } from './cli-harness'
import { startFakeModelServer, type FakeModelServer, type FakeTurn } from './fake-model-server'
import { until } from '../src/main/store/testing/helpers'

export const EVERYTHING = path.join(
  ROOT,
  'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
)
export const MEMORY = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js')
export const FIXTURES = path.join(ROOT, 'test/fixtures/mcp')

export const everything = { command: process.execPath, args: [EVERYTHING, 'stdio'] }

export type Json = Record<string, unknown>

export class Temps {
  private readonly dirs: string[] = []
  dir(prefix: string): string {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
    this.dirs.push(dir)
    return dir
  }
  repo(files: Record<string, string> = { 'a.txt': 'one\n' }): string {
    const repo = committedRepo('stepwise-mcp-repo-', files)
    this.dirs.push(repo)
    return repo
  }
  cleanup(): void {
    for (const dir of this.dirs) fs.rmSync(dir, { recursive: true, force: true })
  }
}

export function writeConfig(dir: string, servers: Record<string, unknown>, name = 'mcp.json'): string {
  const file = path.join(dir, name)
  fs.writeFileSync(file, JSON.stringify({ mcpServers: servers }, null, 2))
  return file
}

export function parseJsonLines(text: string): Json[] {
  return text
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Json)
}

export interface McpSession extends CliResult {
  events: Json[]
  server: FakeModelServer
  /** The model's requests (Chat Completions bodies). */
  requests: Json[]
}

/** `stepwise edit --json` on `repo` with the fake model playing `turns`. */
export async function mcpSession(
  cli: string,
  at: { repo: string; dataDir: string },
  turns: FakeTurn[],
  extra: string[],
  opts: {
    env?: Record<string, string>
    whileRunning?: (s: FakeModelServer, pid: number) => Promise<void>
  } = {},
): Promise<McpSession> {
  const server = await startFakeModelServer({ turns })
  try {
    let pid = 0
    const pending = runCli(
      cli,
      editArgs({ ...at, baseUrl: server.v1Url }, 'Use the MCP tools', '--json', ...extra),
      {
        env: opts.env,
        onSpawn: (p) => (pid = p),
      },
    )
    if (opts.whileRunning) {
      for (let i = 0; i < 400 && pid === 0; i++) await new Promise((r) => setTimeout(r, 25))
      await opts.whileRunning(server, pid)
    }
    const res = await pending
    const requests = server.requests
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => r.body as Json)
    return { ...res, events: parseJsonLines(res.stdout), server, requests }
  } finally {
    await server.close()
  }
}

export const ofType = (events: Json[], type: string): Json[] => events.filter((e) => e.type === type)

/** The tool message the model received for `callId` in a later request. */
export function toolMessage(requests: Json[], callId: string): string | undefined {
  for (const body of requests) {
    const messages = (body.messages ?? []) as { role: string; tool_call_id?: string; content?: string }[]
    const found = messages.find((m) => m.role === 'tool' && m.tool_call_id === callId)
    if (found) return found.content
  }
  return undefined
}

export const toolNames = (request: Json): string[] =>
  ((request.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name)

export async function waitFor(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  await until('an MCP server to get there', check, timeoutMs)
}
