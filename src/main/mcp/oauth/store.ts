import fs from 'node:fs'
import path from 'node:path'
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js'
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import { z } from 'zod'

/*
 * What signing in to an MCP server leaves behind, kept like API keys (config/credentials.ts):
 * `mcp-oauth.json` in the data folder, readable by the user alone (0600), written whole through a
 * temp file so a crash never leaves half of it. On the desktop a sealer (the OS keychain,
 * hosts/electron) encrypts the contents. Never in the database, events, logs or exports.
 * Each record is bound to the server's URL: tokens are never sent to a URL they were not issued for.
 */

export interface OAuthRecord {
  /** The server URL the record belongs to. */
  url: string
  client?: OAuthClientInformationMixed
  tokens?: OAuthTokens
  /** When the access token expires (ms since the epoch), from `expires_in` at save time. */
  expiresAt?: number
  discovery?: OAuthDiscoveryState
}

/** Encrypts the file's contents (the OS keychain on the desktop). */
export interface Sealer {
  seal(text: string): string
  open(sealed: string): string
}

const FILE = 'mcp-oauth.json'

const redirectUris = z.object({ redirect_uris: z.array(z.string()) })

/** The callback URLs a dynamically registered client was registered with (none for a static one). */
export function registeredRedirects(client: OAuthClientInformationMixed | undefined): string[] | undefined {
  const parsed = redirectUris.safeParse(client)
  return parsed.success ? parsed.data.redirect_uris : undefined
}

/** The file: `{servers}`, or `{sealed}` holding that JSON encrypted. */
const fileShape = z.object({ sealed: z.string().optional(), servers: z.unknown() })

/** The records, each bound to its server's URL (`url` checked: a record without one is dropped). */
function serversOf(servers: unknown): Record<string, OAuthRecord> {
  const parsed = z.record(z.string(), z.looseObject({ url: z.string() })).safeParse(servers ?? {})
  if (!parsed.success) return {}
  // The rest of each record (client, tokens, discovery) is what writeAll saved from the SDK's own
  // validated objects, in a 0600 file only Stepwise writes; a bad token means signing in again.
  return parsed.data as Record<string, OAuthRecord>
}

export class OAuthStore {
  constructor(
    private readonly dataDir: string,
    private readonly sealer?: Sealer,
  ) {}

  get file(): string {
    return path.join(this.dataDir, FILE)
  }

  private readAll(): Record<string, OAuthRecord> {
    let text: string
    try {
      text = fs.readFileSync(this.file, 'utf8')
    } catch {
      return {}
    }
    try {
      const outer = fileShape.parse(JSON.parse(text))
      if (outer.sealed === undefined) return serversOf(outer.servers)
      if (!this.sealer) return {}
      return serversOf(fileShape.parse(JSON.parse(this.sealer.open(outer.sealed))).servers)
    } catch {
      // Unreadable (another machine's keychain, a hand edit): as if signed out, rather than locked out.
      return {}
    }
  }

  private writeAll(all: Record<string, OAuthRecord>): void {
    fs.mkdirSync(this.dataDir, { recursive: true })
    const plain = JSON.stringify({ servers: all }, null, 2)
    const text = this.sealer ? JSON.stringify({ sealed: this.sealer.seal(plain) }) : plain
    const tmp = `${this.file}.${process.pid}.tmp`
    fs.writeFileSync(tmp, text, { mode: 0o600 })
    fs.renameSync(tmp, this.file)
    fs.chmodSync(this.file, 0o600)
  }

  /** The server's record, if it belongs to this URL. */
  get(server: string, url: string): OAuthRecord | undefined {
    const record = this.readAll()[server]
    return record && record.url === url ? record : undefined
  }

  /** Changes the server's record (a record for another URL is replaced). */
  update(server: string, url: string, change: (r: OAuthRecord) => void): void {
    const all = this.readAll()
    const record: OAuthRecord = all[server]?.url === url ? all[server] : { url }
    change(record)
    all[server] = record
    this.writeAll(all)
  }

  /** Forgets the server's sign-in; true when there was one. */
  remove(server: string): boolean {
    const all = this.readAll()
    if (!Object.hasOwn(all, server)) return false
    delete all[server]
    this.writeAll(all)
    return true
  }

  signedIn(server: string, url: string): boolean {
    return this.get(server, url)?.tokens !== undefined
  }
}
