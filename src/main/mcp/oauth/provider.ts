import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import type {
  AddClientAuthentication,
  OAuthClientProvider,
  OAuthDiscoveryState,
} from '@modelcontextprotocol/sdk/client/auth.js'
import { createPrivateKeyJwtAuth } from '@modelcontextprotocol/sdk/client/auth-extensions.js'
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js'
import type { OAuthConfig } from '../config-entry'
import { NeedsSignIn } from '../sign-in-errors'
import type { Loopback } from './loopback'
import { registeredRedirects, type OAuthRecord, type OAuthStore } from './store'
import { errorMessage } from '../../../shared/errors'

/*
 * Stepwise's side of the MCP authorization spec, on the SDK's OAuth flow (client/auth.js does
 * discovery, PKCE, the `resource` parameter, scope selection, registration and the token
 * requests): where the client, the tokens and the discovery live (./store.ts), and what "send
 * the user to the authorization server" means — the browser and a loopback callback while the
 * user signs in, "needs sign-in" otherwise.
 *
 * Nothing is stored half-way: what a sign-in learns (registration, discovery) is kept in memory
 * and written with the tokens, once the token endpoint has answered.
 */

/** While the user signs in: where the answer comes back, and how the authorization URL is shown. */
export interface Interaction {
  loopback: Loopback
  open(url: URL): void | Promise<void>
}

/** One server's sign-in: whose tokens, where they are kept, and how the user is reached. */
export interface McpOAuthProviderOptions {
  /** The server's name in the MCP configuration. */
  server: string
  /** The server's URL: the key its record is stored under. */
  url: string
  store: OAuthStore
  /** The entry's `oauth`, its secrets read from the environment. */
  oauth: OAuthConfig | undefined
  /** Only while the user signs in. */
  interaction?: Interaction
  /** Stepwise's client metadata document, when the entry names none. */
  defaultClientMetadataUrl?: string
}

/** Sign-in attempts (authorization requests) per connection before giving up: step-up loops end here. */
export const MAX_AUTHORIZATIONS = 3

export class McpOAuthProvider implements OAuthClientProvider {
  private draft: OAuthRecord
  private verifier?: string
  private expectedState?: string
  private authorizations = 0
  /** The code the loopback will receive, once an authorization URL was opened. */
  pendingCode?: Promise<string>
  /** Only for the client credentials grant: the SDK then asks for a token directly. */
  prepareTokenRequest?: (scope?: string) => URLSearchParams
  /** Only with a private key: the token request is signed (`private_key_jwt`, RFC 7523). */
  addClientAuthentication?: AddClientAuthentication
  private readonly privateKey?: string

  private readonly server: string
  private readonly url: string
  private readonly store: OAuthStore
  private readonly oauth: OAuthConfig | undefined
  private readonly interaction?: Interaction
  private readonly defaultClientMetadataUrl?: string

  constructor(opts: McpOAuthProviderOptions) {
    const { server, url, store, oauth, interaction } = opts
    this.server = server
    this.url = url
    this.store = store
    this.oauth = oauth
    this.interaction = interaction
    this.defaultClientMetadataUrl = opts.defaultClientMetadataUrl
    this.draft = structuredClone(store.get(server, url) ?? { url })
    const registered = registeredRedirects(this.draft.client)
    // A dynamic registration for another callback port cannot take this one's answer: register again.
    if (
      interaction &&
      registered &&
      !oauth?.clientId &&
      !registered.includes(interaction.loopback.redirectUrl)
    )
      delete this.draft.client
    if (oauth?.privateKeyFile) {
      if (!oauth.clientId) throw new Error('"oauth": "privateKeyFile" needs "clientId" beside it.')
      try {
        this.privateKey = fs.readFileSync(oauth.privateKeyFile, 'utf8')
      } catch (err) {
        throw new Error(`"oauth": "privateKeyFile" cannot be read (${errorMessage(err)}).`, {
          cause: err,
        })
      }
      this.addClientAuthentication = createPrivateKeyJwtAuth({
        issuer: oauth.clientId,
        subject: oauth.clientId,
        privateKey: this.privateKey,
        alg: oauth.signingAlgorithm ?? 'RS256',
      })
    }
    if (oauth?.grantType === 'client_credentials')
      this.prepareTokenRequest = (scope) => {
        const params = new URLSearchParams({ grant_type: 'client_credentials' })
        if (scope) params.set('scope', scope)
        return params
      }
  }

  get redirectUrl(): string | undefined {
    if (this.oauth?.grantType === 'client_credentials') return undefined
    if (this.interaction) return this.interaction.loopback.redirectUrl
    const registered = registeredRedirects(this.draft.client)
    return registered?.[0] ?? 'http://127.0.0.1/callback'
  }

  get clientMetadata(): OAuthClientMetadata {
    const credentials = this.oauth?.grantType === 'client_credentials'
    return {
      client_name: 'Stepwise',
      client_uri: 'https://github.com/stepwise-dev/stepwise',
      redirect_uris: credentials ? [] : [this.redirectUrl!],
      grant_types: credentials ? ['client_credentials'] : ['authorization_code', 'refresh_token'],
      response_types: credentials ? [] : ['code'],
      ...(credentials
        ? { token_endpoint_auth_method: this.privateKey ? 'private_key_jwt' : 'client_secret_basic' }
        : {}),
      ...(this.oauth?.scopes?.length ? { scope: this.oauth.scopes.join(' ') } : {}),
    }
  }

  get clientMetadataUrl(): string | undefined {
    return this.oauth?.clientMetadataUrl ?? this.defaultClientMetadataUrl
  }

  state(): string {
    this.expectedState = randomBytes(24).toString('base64url')
    return this.expectedState
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    if (this.oauth?.clientId)
      return {
        client_id: this.oauth.clientId,
        ...(this.oauth.clientSecret ? { client_secret: this.oauth.clientSecret } : {}),
      }
    return this.draft.client
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    // A pre-registered client lives in the config; only what the server issued is kept.
    if (!this.oauth?.clientId) this.draft.client = info
  }

  tokens(): OAuthTokens | undefined {
    return this.draft.tokens
  }

  /** The token endpoint answered: everything this sign-in learned is written, at once. */
  saveTokens(tokens: OAuthTokens): void {
    this.draft.tokens = tokens
    this.draft.expiresAt = tokens.expires_in ? Date.now() + tokens.expires_in * 1000 : undefined
    const draft = this.draft
    this.store.update(this.server, this.url, (r) => Object.assign(r, structuredClone(draft)))
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.draft.discovery = state
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.draft.discovery
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('No sign-in in progress (no PKCE code verifier).')
    return this.verifier
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (!this.interaction) throw new NeedsSignIn(this.server)
    this.authorizations += 1
    if (this.authorizations > MAX_AUTHORIZATIONS)
      throw new Error(
        `MCP server "${this.server}" still refused after ${MAX_AUTHORIZATIONS} sign-ins (it keeps asking for more permissions); not asking again.`,
      )
    this.offerOfflineAccess(authorizationUrl)
    const state = authorizationUrl.searchParams.get('state') ?? this.expectedState ?? ''
    this.pendingCode = this.interaction.loopback.code(state)
    // Handled where the code is awaited; a rejection before then must not go unhandled.
    this.pendingCode.catch(() => undefined)
    await this.interaction.open(authorizationUrl)
  }

  /**
   * Asks for `offline_access` (a refresh token, so the sign-in lasts) when the authorization
   * server offers that scope and the request names scopes without it (SEP-2207).
   */
  private offerOfflineAccess(url: URL): void {
    const metadata = this.draft.discovery?.authorizationServerMetadata
    const scope = url.searchParams.get('scope')
    if (!scope || !metadata?.scopes_supported?.includes('offline_access')) return
    if (metadata.grant_types_supported && !metadata.grant_types_supported.includes('refresh_token')) return
    const scopes = scope.split(' ')
    if (!scopes.includes('offline_access'))
      url.searchParams.set('scope', [...scopes, 'offline_access'].join(' '))
  }

  /** The SDK found credentials invalid (a refresh refused, a client unknown): forget them for good. */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'verifier') {
      this.verifier = undefined
      return
    }
    if (scope === 'all' || scope === 'tokens') {
      delete this.draft.tokens
      delete this.draft.expiresAt
    }
    if (scope === 'all' || scope === 'client') delete this.draft.client
    if (scope === 'all' || scope === 'discovery') delete this.draft.discovery
    if (!this.store.get(this.server, this.url)) return
    const draft = this.draft
    this.store.update(this.server, this.url, (r) => {
      if (!draft.tokens) delete r.tokens
      if (!draft.client) delete r.client
      if (!draft.discovery) delete r.discovery
    })
  }
}
