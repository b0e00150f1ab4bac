import { z } from 'zod'
import { isRecord } from '../../shared/records'

/*
 * One server entry as other clients write it, read into Stepwise's shape. Claude Code, Cursor,
 * Cline, Windsurf and VS Code share `command`/`args`/`env` and `url`/`headers`, and each adds keys
 * of its own: those with a meaning here are mapped (`disabled` → off, `autoApprove` → allowed
 * tools, `timeout` → the call timeout, `oauth` → a pre-registered OAuth client, `serverUrl` and
 * `transportType` as aliases); the others are ignored with one warning naming them. A wrong value
 * for a key we do read still spoils the entry, with a message naming the key.
 */

const stdioServer = z.object({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().optional(),
  /** Run inside the command sandbox (bwrap): project writable, the rest read-only, no network. */
  sandbox: z.boolean().default(false),
  /** Also let it reach the network inside the sandbox. */
  network: z.boolean().optional(),
})

/** A client registered with the server's authorization server beforehand (docs/mcp.md#sign-in). */
export const oauthConfig = z.object({
  clientId: z.string().min(1).optional(),
  clientSecret: z.string().optional(),
  /** Scopes to ask for when neither the server's 401 nor its metadata name any. */
  scopes: z.array(z.string()).optional(),
  /** The loopback port for the sign-in callback (Claude Code's key); default: any free port. */
  callbackPort: z.number().int().min(1).max(65535).optional(),
  /** An https URL serving this client's metadata document (Client ID Metadata Documents). */
  clientMetadataUrl: z.string().url().optional(),
  /** `client_credentials`: sign in unattended with clientId and clientSecret (or a private key), no browser. */
  grantType: z.enum(['authorization_code', 'client_credentials']).optional(),
  /** For `client_credentials` with `private_key_jwt`: a PEM file holding the client's private key. */
  privateKeyFile: z.string().optional(),
  /** The JWT signing algorithm for `privateKeyFile` (default RS256). */
  signingAlgorithm: z.string().optional(),
})
export type OAuthConfig = z.infer<typeof oauthConfig>

const HTTP_TYPES = ['http', 'streamable-http', 'streamableHttp', 'sse'] as const

const httpServer = z.object({
  type: z.enum(HTTP_TYPES).optional(),
  /** `${VAR}` may stand for any part (expanded when it starts, ./launch.ts), so it is checked with them as `x`. */
  url: z.string().refine((u) => URL.canParse(u.replace(/\$\{[^}]*\}/g, 'x')), 'Invalid URL'),
  headers: z.record(z.string(), z.string()).default({}),
  oauth: oauthConfig.optional(),
})

/** Keys every entry may carry, whatever its transport. */
const common = z.object({
  /** Cline, Cursor, Claude Desktop extensions: the server is off until the user turns it on. */
  disabled: z.boolean().optional(),
  /** Cline's (and Roo's `alwaysAllow`): tools `auto-edit` runs without asking. */
  autoApprove: z.array(z.string()).optional(),
  /** Cline's, in seconds: the longest silence during a call. */
  timeout: z
    .number()
    .positive()
    .max(24 * 3600)
    .optional(),
})

export type StdioServerConfig = z.infer<typeof stdioServer>
export type HttpServerConfig = z.infer<typeof httpServer>

export function isStdio(spec: StdioServerConfig | HttpServerConfig): spec is StdioServerConfig {
  return Object.hasOwn(spec, 'command')
}

export interface EntryOptions {
  disabled?: boolean
  autoApprove?: string[]
  /** Seconds. */
  timeout?: number
}

export type ParsedEntry =
  | { ok: true; spec: StdioServerConfig | HttpServerConfig; options: EntryOptions; ignored: string[] }
  | { ok: false; error: string }

const STDIO_KEYS = Object.keys(stdioServer.shape)
const HTTP_KEYS = Object.keys(httpServer.shape)
const COMMON_KEYS = Object.keys(common.shape)

/** `type` values other clients write, mapped to ours (VS Code `http`, Cline `streamableHttp`, …). */
function normaliseType(type: unknown): unknown {
  if (type === 'streamable_http' || type === 'streamable') return 'streamable-http'
  if (type === 'local') return 'stdio'
  return type
}

export function parseEntry(raw: unknown): ParsedEntry {
  if (!isRecord(raw)) return { ok: false, error: 'expected an object.' }
  const entry = { ...raw }
  // Aliases: Windsurf's `serverUrl`, Cline's `transportType`, Roo's `alwaysAllow`.
  if (entry.url === undefined && typeof entry.serverUrl === 'string') entry.url = entry.serverUrl
  if (entry.type === undefined && entry.transportType !== undefined) entry.type = entry.transportType
  if (entry.autoApprove === undefined && entry.alwaysAllow !== undefined)
    entry.autoApprove = entry.alwaysAllow
  delete entry.serverUrl
  delete entry.transportType
  delete entry.alwaysAllow
  entry.type = normaliseType(entry.type)
  if (entry.type === undefined) delete entry.type
  const stdio = Object.hasOwn(entry, 'command')
  if (!stdio && !Object.hasOwn(entry, 'url'))
    return { ok: false, error: 'needs "command" (stdio) or "url" (HTTP).' }
  const own = stdio ? STDIO_KEYS : HTTP_KEYS
  const picked: Record<string, unknown> = {}
  const ignored: string[] = []
  for (const [key, value] of Object.entries(entry)) {
    if (own.includes(key) || COMMON_KEYS.includes(key)) picked[key] = value
    else ignored.push(key)
  }
  const parsed = (stdio ? stdioServer.extend(common.shape) : httpServer.extend(common.shape)).safeParse(
    picked,
  )
  if (!parsed.success)
    return {
      ok: false,
      error: parsed.error.issues
        .map((i) => `${i.path.length ? `"${i.path.join('.')}"` : 'entry'}: ${i.message}`)
        .join('; '),
    }
  const { disabled, autoApprove, timeout, ...spec } = parsed.data
  const options: EntryOptions = {}
  if (disabled !== undefined) options.disabled = disabled
  if (autoApprove !== undefined) options.autoApprove = autoApprove
  if (timeout !== undefined) options.timeout = timeout
  return { ok: true, spec: spec as StdioServerConfig | HttpServerConfig, options, ignored }
}
