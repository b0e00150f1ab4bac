import type { HostMessage, InvokeReply } from '../../shared/protocol'

export type { InvokeReply }

/**
 * What a host (Electron IPC, the web host's WebSocket) needs from the core: answer a
 * command and stream what happens. The input is untrusted; `answer` validates it.
 */
export interface CoreService {
  answer(command: unknown, input: unknown): Promise<InvokeReply>
  /** Every event of every session, and host notices (model pull progress…); returns the unsubscribe. */
  subscribe(listener: (message: HostMessage) => void): () => void
  close(): Promise<void>
}
