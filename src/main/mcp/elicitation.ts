import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js'

/*
 * A server asking the user something (`elicitation/create`): a form (a flat JSON Schema of
 * strings, numbers, booleans and enums, with defaults) or a URL to open. It is a question for
 * the user, so it is asked in every approval policy, `full-auto` included; where nobody can
 * answer (no terminal, no app) it is declined and the reason said (docs/mcp.md#elicitation).
 */

export type ElicitParams = ElicitRequest['params']

export interface McpElicitation {
  server: string
  /** `form` (answers by the schema) or `url` (the user opens the URL). */
  mode: 'form' | 'url'
  message: string
  /** For `form`: the properties asked for, with their defaults. */
  requestedSchema?: Record<string, unknown>
  /** For `url`. */
  url?: string
  elicitationId?: string
}

/** Asks the user; the answer goes back to the server as is. */
export type Elicit = (question: McpElicitation, signal: AbortSignal) => Promise<ElicitResult>

export function toElicitation(server: string, params: ElicitParams): McpElicitation {
  if (params.mode === 'url')
    return {
      server,
      mode: 'url',
      message: params.message,
      url: params.url,
      elicitationId: params.elicitationId,
    }
  return {
    server,
    mode: 'form',
    message: params.message,
    requestedSchema: params.requestedSchema as Record<string, unknown>,
  }
}
