import type { McpList, McpServerView } from './types'

/** Lists as the core answers them, for the view's tests. */

export function server(over: Partial<McpServerView> = {}): McpServerView {
  return {
    name: 'everything',
    source: 'user',
    transport: 'stdio',
    target: 'mcp-server-everything',
    state: 'ready',
    enabled: true,
    sandbox: false,
    allowed: false,
    signedIn: false,
    tools: [
      {
        name: 'echo',
        qualified: 'mcp__everything__echo',
        description: 'Echoes back the input',
        readOnly: true,
        enabled: true,
        allowed: false,
      },
      {
        name: 'add',
        qualified: 'mcp__everything__add',
        description: 'Adds two numbers',
        readOnly: false,
        enabled: true,
        allowed: false,
      },
    ],
    ...over,
  }
}

export function pendingProject(): McpList {
  return {
    servers: [
      server(),
      server({
        name: 'memory',
        source: 'project',
        target: 'npx -y @modelcontextprotocol/server-memory',
        state: 'awaiting-approval',
        tools: [],
      }),
    ],
    project: {
      path: '/repo/.mcp.json',
      hash: 'a'.repeat(64),
      state: 'pending',
      servers: ['memory'],
      files: ['.mcp.json'],
      changes: [],
    },
  }
}
