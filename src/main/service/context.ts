import type { ApprovalPolicy, HostMessage, ProviderId } from '../../shared/protocol'
import type { Store } from '../store/types'

/** Where an API key comes from and goes to: a file beside the database, or the OS keychain (desktop). */
export interface KeyStore {
  get(provider: ProviderId): string | undefined
  set(provider: ProviderId, key: string): void
  /** How and where saved keys are kept, in words the user is shown beside the key field. */
  readonly storage: string
  /** Encrypts other secrets kept beside the keys (MCP sign-ins) the same way; absent: 0600 files only. */
  sealer?: { seal(text: string): string; open(sealed: string): string }
}

/** The model a new session starts on, unless the user picks another. */
export interface ModelDefaults {
  provider: ProviderId
  model: string
  baseUrl?: string
  /** Set by the host's flag (`serve --approve`); else the stored setting applies. */
  approvalPolicy?: ApprovalPolicy
  /** Set by the host's flags (`serve --num-ctx`, `--temperature`); else the stored settings apply. */
  numCtx?: number
  temperature?: number
  /** The stream limits from the host's flags (`serve --idle-timeout`, …); else the stored settings. */
  firstTokenTimeoutSec?: number
  idleTimeoutSec?: number
  maxOutputTokens?: number
}

/** What every command handler of the service shares. */
export interface ServiceContext {
  store: Store
  dataDir: string
  host: 'electron' | 'web' | 'cli'
  keys: KeyStore
  defaults: ModelDefaults
  startProject?: string
  /** Said once to the user: restores a crash cut short and how they ended. */
  startupNotices: string[]
  /** Sends a message to every subscribed host. */
  broadcast(message: HostMessage): void
}
