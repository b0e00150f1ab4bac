import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { describeTarget, isStdio, type McpServerConfig } from './config'
import { isUnauthorized } from './sign-in-errors'
import { errnoCode, errorMessage } from '../../shared/errors'

/* What a connection's failures mean and how they read (./connection.ts). */

/** An error of the OAuth flow (metadata, registration, token), not of MCP or its transport. */
export function isSignInError(err: unknown): boolean {
  return !(err instanceof McpError || err instanceof StreamableHTTPError || isUnauthorized(err))
}

export function olderTransportMayAnswer(err: unknown): boolean {
  if (!(err instanceof StreamableHTTPError) || err.code === undefined) return false
  return err.code >= 400 && err.code < 500 && err.code !== 401 && err.code !== 403
}

/** The longest silence during a call: the entry's `timeout` (seconds), else the manager's, else 10 minutes. */
export function callTimeout(config: McpServerConfig, fallbackMs: number | undefined): number {
  const seconds = config.options?.timeout
  return seconds !== undefined ? seconds * 1000 : (fallbackMs ?? 10 * 60_000)
}

/** Why a server did not start, for the user: the command or URL and the reason. */
export function startFailureMessage(config: McpServerConfig, err: unknown, startTimeoutMs: number): string {
  const target = describeTarget(config.spec)
  const what = isStdio(config.spec) ? `command: ${target}` : `URL: ${target}`
  const message = errorMessage(err)
  const reason =
    errnoCode(err) === 'ENOENT'
      ? `the program was not found (${message}); is it installed and on PATH?`
      : /timed out|timeout/i.test(message)
        ? `it did not answer "initialize" within ${Math.round(startTimeoutMs / 1000)} s`
        : message
  return `MCP server "${config.name}" did not start (${what}): ${reason}.`
}
