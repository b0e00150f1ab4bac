import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import type { HttpServerConfig, McpServerConfig } from '../config'
import type { OAuthConfig } from '../config-entry'
import { expandEnv, type HttpTarget } from '../launch'
import { startLoopback, type Loopback } from './loopback'
import { McpOAuthProvider } from './provider'
import { registeredRedirects, type OAuthStore } from './store'

/*
 * Sign-in for one HTTP server's connection: which OAuth provider its transport gets, and what
 * happens when the SDK's flow stops at "send the user to the authorization server" — while the
 * user signs in (`stepwise mcp login`, "Sign in" in the app), wait for the loopback's code and
 * exchange it; otherwise the server needs sign-in.
 */

export interface McpAuthContext {
  store: OAuthStore
  /** An https URL serving Stepwise's client metadata document, for servers that accept one (CIMD). */
  clientMetadataUrl?: string
}

/** Shows the authorization URL to the user: the system browser, or a line to open by hand. */
export type OpenUrl = (url: URL, server: string) => void | Promise<void>

export class ServerAuth {
  provider?: McpOAuthProvider
  private loopback?: Loopback
  /** The last request of the sign-in (metadata, registration, token), named when it fails. */
  lastAuthRequest?: string
  /**
   * The transports' fetch: adds the entry's `headers` to requests to the server's own origin (and
   * to no other: an authorization server elsewhere never sees them), and notes the sign-in's
   * requests (any not to the server's own URL) to name one that fails.
   */
  readonly fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input)
    if (url !== this.url.href) this.lastAuthRequest = url
    if (Object.keys(this.target.headers).length === 0 || new URL(url).origin !== this.url.origin)
      return fetch(input, init)
    const headers = new Headers(init?.headers)
    for (const [k, v] of Object.entries(this.target.headers)) headers.set(k, v)
    return fetch(input, { ...init, headers })
  }

  /** The server's URL and the entry's `headers`, as read from the environment (`httpTarget`). */
  constructor(
    private readonly config: McpServerConfig & { spec: HttpServerConfig },
    private readonly target: HttpTarget,
    private readonly ctx: McpAuthContext,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  private get url(): URL {
    return this.target.url
  }

  /**
   * The provider for the transport. Without one a 401 is simply "needs sign-in": a server with no
   * `oauth` entry and nothing stored is not signed in to behind the user's back; with stored tokens
   * the SDK refreshes them quietly.
   */
  async prepare(open: OpenUrl | undefined): Promise<McpOAuthProvider | undefined> {
    const oauth = this.oauthConfig()
    const key = this.url.href
    const stored = this.ctx.store.get(this.config.name, key)
    if (!open && !oauth && !stored?.tokens) return undefined
    let interaction
    if (open && oauth?.grantType !== 'client_credentials') {
      this.loopback = await this.openLoopback(registeredRedirects(stored?.client))
      interaction = { loopback: this.loopback, open: (u: URL) => open(u, this.config.name) }
    }
    this.provider = new McpOAuthProvider({
      server: this.config.name,
      url: key,
      store: this.ctx.store,
      oauth,
      interaction,
      defaultClientMetadataUrl: this.ctx.clientMetadataUrl,
    })
    return this.provider
  }

  /**
   * The entry's `oauth`, its secret and key file read from the environment like `headers` (not in a
   * project's file). A project's file may not name a key file: that would have Stepwise read a file
   * of the user's choosing outside the project (a cloned repository naming `~/.ssh/id_rsa`).
   */
  private oauthConfig(): OAuthConfig | undefined {
    const oauth = this.config.spec.oauth
    if (!oauth) return undefined
    if (this.config.source === 'project' && oauth.privateKeyFile !== undefined)
      throw new Error(
        `"oauth": "privateKeyFile" is read only from your own MCP configuration, not from the project's .mcp.json; move the "${this.config.name}" entry there.`,
      )
    const expand = (v: string | undefined) =>
      v === undefined ? v : expandEnv(v, this.config.source, this.env)
    return {
      ...oauth,
      clientSecret: expand(oauth.clientSecret),
      privateKeyFile: expand(oauth.privateKeyFile),
    }
  }

  private async openLoopback(registered: string[] | undefined): Promise<Loopback> {
    const configured = this.oauthConfig()?.callbackPort
    if (configured) return startLoopback(configured)
    // The port of an earlier registration, so the client registered then still matches.
    const earlier = registered
      ?.map((u) => URL.canParse(u) && new URL(u))
      .find((u) => u && u.hostname === '127.0.0.1')
    if (earlier && earlier.port) {
      try {
        return await startLoopback(Number(earlier.port))
      } catch {
        // Taken now: any port, and a new registration.
      }
    }
    return startLoopback(0)
  }

  /**
   * After the SDK stopped at the authorization step: waits for the user's answer on the loopback
   * and exchanges the code for tokens. False when no sign-in is under way (the caller reports the
   * error as it is).
   */
  async complete(err: unknown): Promise<boolean> {
    const provider = this.provider
    const pending = provider?.pendingCode
    if (!provider || !pending || !(err instanceof UnauthorizedError)) return false
    provider.pendingCode = undefined
    const code = await pending
    const result = await auth(provider, { serverUrl: this.url, authorizationCode: code, fetchFn: this.fetch })
    return result === 'AUTHORIZED'
  }

  /** An error of the sign-in named with the request it failed at; other errors as they are. */
  describe(err: Error, fromSignIn: boolean): Error {
    if (!this.provider || !this.lastAuthRequest || !fromSignIn) return err
    return new Error(`signing in failed at ${this.lastAuthRequest}: ${err.message}`, { cause: err })
  }

  /** The sign-in is over: the callback stops listening. */
  close(): void {
    this.loopback?.close()
    this.loopback = undefined
  }
}
