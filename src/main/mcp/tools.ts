import { z } from 'zod'
import type { ActionTool, ToolDefinition, ToolResult } from '../tools/types'
import { convertResult, type ConvertedResult, type McpCallResult } from './results'
import { isRecord } from '../../shared/records'

/*
 * An MCP server's tool as a Stepwise tool: named `mcp__SERVER__TOOL` (Claude Code's
 * convention, so prompts and docs carry over), offered with the server's own JSON
 * Schema, and treated as an action: it can do anything, so the approval policy
 * decides (agent/mcp-run.ts). `readOnlyHint` only decides what `read-only` offers.
 */

/** Server descriptions are untrusted text in the model's context: capped. */
export const MAX_DESCRIPTION = 1024
/** Providers take function names up to 64 characters of `[A-Za-z0-9_-]`. */
const MAX_NAME = 64

export interface McpToolInfo {
  name: string
  description?: string
  inputSchema?: Record<string, unknown>
  annotations?: {
    readOnlyHint?: boolean
    destructiveHint?: boolean
    idempotentHint?: boolean
    openWorldHint?: boolean
    title?: string
  }
}

/** The annotations beyond `readOnlyHint`, where the server set them. */
export interface McpToolHints {
  destructive?: boolean
  idempotent?: boolean
  openWorld?: boolean
}

export function hintsOf(info: McpToolInfo): McpToolHints | undefined {
  const a = info.annotations ?? {}
  const hints: McpToolHints = {}
  if (typeof a.destructiveHint === 'boolean') hints.destructive = a.destructiveHint
  if (typeof a.idempotentHint === 'boolean') hints.idempotent = a.idempotentHint
  if (typeof a.openWorldHint === 'boolean') hints.openWorld = a.openWorldHint
  return Object.keys(hints).length > 0 ? hints : undefined
}

export interface McpCallOptions {
  signal: AbortSignal
  onProgress(progress: { progress: number; total?: number; message?: string }): void
}

/** What a tool needs of its server's connection. */
export interface McpCaller {
  callTool(name: string, args: Record<string, unknown>, opts: McpCallOptions): Promise<McpCallResult>
}

export interface McpTool extends ActionTool<z.ZodType<Record<string, unknown>>> {
  family: 'mcp'
  mcp: { server: string; tool: string; readOnly: boolean; description: string; hints?: McpToolHints }
  /** The server's JSON Schema, sent to the model as the parameters. */
  parameters: Record<string, unknown>
  call(args: Record<string, unknown>, opts: McpCallOptions): Promise<ConvertedResult>
}

export function isMcpTool(tool: ToolDefinition): tool is McpTool {
  return tool.family === 'mcp'
}

export function qualifiedName(server: string, tool: string): string {
  const safe = `mcp__${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_')
  return safe.length > MAX_NAME ? safe.slice(0, MAX_NAME) : safe
}

export function capDescription(text: string | undefined): string {
  const clean = (text ?? '').replace(/\s+/g, ' ').trim()
  return clean.length > MAX_DESCRIPTION ? `${clean.slice(0, MAX_DESCRIPTION - 1)}…` : clean
}

/** The server checks arguments against its own schema; ours only insists on an object. */
const anyObject = z.record(z.string(), z.unknown())

function parametersOf(info: McpToolInfo): Record<string, unknown> {
  const schema = info.inputSchema && typeof info.inputSchema === 'object' ? { ...info.inputSchema } : {}
  delete schema.$schema
  if (schema.type !== 'object') return { type: 'object', properties: {} }
  return { properties: {}, ...schema }
}

export function mcpTool(server: string, info: McpToolInfo, caller: McpCaller): McpTool {
  const description = capDescription(info.description)
  const readOnly = info.annotations?.readOnlyHint === true
  const call = async (args: Record<string, unknown>, opts: McpCallOptions): Promise<ConvertedResult> =>
    convertResult(await caller.callTool(info.name, args, opts), server, info.name)
  return {
    name: qualifiedName(server, info.name),
    family: 'mcp',
    description: `[MCP server "${server}"] ${description || info.name}`,
    input: anyObject,
    parameters: parametersOf(info),
    mutating: true,
    mcp: {
      server,
      tool: info.name,
      readOnly,
      description,
      ...(hintsOf(info) ? { hints: hintsOf(info) } : {}),
    },
    call,
    // The plan/execute pair serves hosts that run actions generically; the loop uses agent/mcp-run.ts.
    async plan(input) {
      return { ok: true, summary: describeCall(server, info.name, input), verdict: 'ask', data: input }
    },
    async execute(plan, ctx, io): Promise<ToolResult> {
      const converted = await call(isRecord(plan.data) ? plan.data : {}, {
        signal: ctx.signal,
        onProgress: (p) => io.onOutput('stdout', progressLine(p)),
      })
      return converted.result
    },
  }
}

export function describeCall(server: string, tool: string, args: unknown): string {
  const text = JSON.stringify(args ?? {})
  return `MCP server "${server}", tool "${tool}", arguments ${text.length > 2000 ? `${text.slice(0, 2000)}…` : text}`
}

export function progressLine(p: { progress: number; total?: number; message?: string }): string {
  const amount = p.total ? `${p.progress}/${p.total}` : `${p.progress}`
  return `[progress ${amount}]${p.message ? ` ${p.message}` : ''}\n`
}
