import type { CommandInput, CommandOutput } from '../../shared/protocol'
import type { ServiceContext } from './context'

type Out = CommandOutput<'mcp/list'>

/** The MCP view's commands (docs/mcp.md). */
export function mcpHandlers(_ctx: ServiceContext) {
  const list = (): Out => ({ servers: [], project: null })
  return {
    'mcp/list': () => list(),
    'mcp/setEnabled': (_input: CommandInput<'mcp/setEnabled'>) => list(),
    'mcp/setAllowed': (_input: CommandInput<'mcp/setAllowed'>) => list(),
    'mcp/approveProject': (_input: CommandInput<'mcp/approveProject'>) => list(),
    'mcp/restart': (_input: CommandInput<'mcp/restart'>) => list(),
    'mcp/log': (_input: CommandInput<'mcp/log'>) => ({ text: '' }),
  }
}
