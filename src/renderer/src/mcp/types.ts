/**
 * The MCP commands' shapes as the view uses them. They mirror the shared protocol's `mcp/*`
 * commands (src/shared/protocol/mcp.ts) until that module lands; then these become aliases of it.
 */

export type McpServerState = 'disabled' | 'awaiting-approval' | 'stopped' | 'starting' | 'ready' | 'failed'

export interface McpToolView {
  name: string
  qualified: string
  /** Untrusted text from the server, already capped by the core. */
  description: string
  readOnly: boolean
  enabled: boolean
  allowed: boolean
}

export interface McpServerView {
  name: string
  source: 'user' | 'cli' | 'project'
  transport: 'stdio' | 'http'
  /** The command line or URL, for display. */
  target: string
  state: McpServerState
  error?: string
  enabled: boolean
  sandbox: boolean
  allowed: boolean
  tools: McpToolView[]
}

export type McpProjectState = 'none' | 'pending' | 'approved' | 'changed' | 'rejected'

export interface McpProjectView {
  path: string
  hash: string
  state: McpProjectState
  servers: string[]
}

export interface McpList {
  servers: McpServerView[]
  project: McpProjectView | null
}

/** Each command's input and output. */
export interface McpCommands {
  'mcp/list': { input: Record<string, never>; output: McpList }
  'mcp/setEnabled': { input: { server: string; tool?: string; enabled: boolean }; output: McpList }
  'mcp/setAllowed': { input: { server: string; tool?: string; allowed: boolean }; output: McpList }
  'mcp/approveProject': { input: { hash: string; approve: boolean }; output: McpList }
  'mcp/restart': { input: { server: string }; output: McpList }
  'mcp/log': { input: { server: string }; output: { text: string } }
}
export type McpCommand = keyof McpCommands
