import { contribute } from '../panels/registry'
import { McpDialog } from './McpDialog'
import { MCP_PANEL, openMcp } from './mcpState'

/** MCP servers: their dialog and the command that opens it. */
export const contributeMcp = (): (() => void) =>
  contribute({
    feature: 'mcp',
    dialogs: [{ id: MCP_PANEL, component: McpDialog }],
    commands: [
      {
        id: 'mcp',
        slash: 'mcp',
        title: 'MCP servers',
        hint: 'Servers, their tools and status; approve a project’s .mcp.json',
        keywords: 'model context protocol tools servers plugins integrations',
        run: openMcp,
      },
    ],
  })
