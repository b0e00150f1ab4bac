/**
 * What the app knows about a model provider without talking to it: its name, whether it needs a
 * key, where it listens by default, whether it can pull models and how it is priced. Hosts, the
 * core and the renderer read this (no Node here); building the client that talks to the server
 * is src/main/providers' job (registry.ts there), from the same id.
 */

/** The API a provider's server speaks: which client streams a turn and how its models are listed. */
export type WireProtocol =
  /** Ollama's /api/chat, models from /api/tags. */
  | 'ollama'
  /** OpenAI's Chat Completions (/chat/completions), models from /models. */
  | 'chat-completions'
  /** OpenAI's Responses API (/responses), models from /models. */
  | 'responses'

export interface ProviderDescriptor {
  /** The id in settings, events, `--provider` and `PROVIDER:NAME`: lower case, digits and `-`. */
  readonly id: string
  /** The name the app shows. */
  readonly label: string
  readonly wire: WireProtocol
  /**
   * `required`: a session at the default address needs a key (a key-less session elsewhere is
   * let through: a proxy may not ask); `optional`: a key may be entered; `none`: never asked.
   */
  readonly apiKey: 'required' | 'optional' | 'none'
  /** Whether models are pulled onto the server from the app (Ollama's /api/pull). */
  readonly canPull: boolean
  /** Where it listens unless told otherwise; none when the user must enter an address. */
  readonly defaultBaseUrl?: string
  /**
   * Where token prices come from: `none` (local, free), `per-provider` (the provider's model
   * list, one for all addresses) or `per-address` (the list of the server at the session's address).
   */
  readonly pricing: 'none' | 'per-provider' | 'per-address'
  /** Environment variables a host reads for this provider. */
  readonly env: { readonly baseUrl?: string; readonly apiKey?: string; readonly model?: string }
  /** The model a new session gets when none is named. */
  readonly defaultModel?: string
  /** The key field's placeholder (`sk-…`). */
  readonly keyHint?: string
  /** A line for the picker's tab before it is set up: what servers it reaches. */
  readonly description?: string
  /** A server the user runs on this machine: the commands hints name (`ollama serve`, `ollama pull`). */
  readonly localServer?: { readonly start: string; readonly pull?: string }
}

const ID_SHAPE = /^[a-z][a-z0-9-]{0,31}$/

/** The id's shape, for the protocol schema and registration alike. */
export function isProviderIdShape(id: string): boolean {
  return ID_SHAPE.test(id)
}
