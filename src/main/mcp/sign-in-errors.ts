import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js'
import { describeTarget, type McpServerConfig } from './config'

/** The server wants credentials it does not have: the user signs in (docs/mcp.md#sign-in). */
export class NeedsSignIn extends Error {
  constructor(readonly server: string) {
    super(`MCP server "${server}" needs sign-in.`)
  }
}

/** A 401 from either HTTP transport, or the SDK's auth flow giving up for want of the user. */
export function isUnauthorized(err: unknown): boolean {
  if (err instanceof NeedsSignIn || err instanceof UnauthorizedError) return true
  if (err instanceof StreamableHTTPError || err instanceof SseError) return err.code === 401
  return false
}

/** What the user reads: which server, where, and the command that fixes it. */
export function needsSignInMessage(config: McpServerConfig): string {
  return `MCP server "${config.name}" needs sign-in (URL: ${describeTarget(config.spec)}): it answered 401 Unauthorized. Sign in with \`stepwise mcp login ${config.name}\`, or "Sign in" on its row in the app's MCP view.`
}
