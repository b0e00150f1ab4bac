import type { CommandInput, CommandOutput, McpListOutput } from '../../../shared/protocol'

/** The MCP commands' shapes as the view uses them (src/shared/protocol/mcp.ts). */

export type {
  McpElicitationView,
  McpServerState,
  McpServerView,
  McpToolView,
  McpProjectState,
} from '../../../shared/protocol'

export type McpList = McpListOutput
export type McpProjectView = NonNullable<McpList['project']>

export type McpCommand =
  | 'mcp/list'
  | 'mcp/setEnabled'
  | 'mcp/setAllowed'
  | 'mcp/approveProject'
  | 'mcp/restart'
  | 'mcp/log'
  | 'mcp/signIn'
  | 'mcp/signOut'
  | 'mcp/elicitations'
  | 'mcp/answerElicitation'

/** Each command's input and output. */
export type McpCommands = { [C in McpCommand]: { input: CommandInput<C>; output: CommandOutput<C> } }
