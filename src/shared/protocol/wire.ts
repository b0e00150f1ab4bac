// The WebSocket protocol between the browser renderer and `stepwise serve` (src/main/hosts/web), shared
// by both ends.
//
//   path       WS_PATH (`/ws`), authenticated like every HTTP request (`?token=` or the token cookie)
//   client →   { id: number, command: string, input: unknown }           one command
//   server →   { id: number, reply: InvokeReply }                        its answer, same id
//   server →   { message: HostMessage }                                  every event and host notice
//   server →   { id: null, reply: { ok: false, error } }                 a frame that is not a request
//
// A request with a usable id but a bad shape is answered under that id, so the caller's promise settles.
// A socket that falls more than BACKPRESSURE_LIMIT bytes behind is closed with CLOSE_TOO_FAR_BEHIND:
// the client reconnects and refetches what it missed; messages are never dropped silently.
import type { HostMessage } from './notices'
import { isRecord } from '../records'

/** One command's answer as it crosses a host boundary (IPC or WebSocket): never a thrown error. */
export type InvokeReply = { ok: true; output: unknown } | { ok: false; error: string }

/** Where the WebSocket endpoint lives on the web host. */
export const WS_PATH = '/ws'

/** The query parameter that carries the access token. */
export const TOKEN_PARAM = 'token'

/** Bytes a socket may have queued before the host gives up on it. */
export const BACKPRESSURE_LIMIT = 8 * 1024 * 1024

/** "Try again later": the close code for a socket that fell too far behind. */
export const CLOSE_TOO_FAR_BEHIND = 1013

/** The close code when the host shuts down. */
export const CLOSE_GOING_AWAY = 1001

export interface ClientRequest {
  id: number
  command: string
  input: unknown
}

export type ServerReply = { id: number | null; reply: InvokeReply }
export type ServerPush = { message: HostMessage }
export type ServerMessage = ServerReply | ServerPush

export type ParsedRequest =
  { ok: true; request: ClientRequest } | { ok: false; id: number | null; error: string }

const isRequestId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0

/** Reads one text frame from a client; never throws. */
export function parseClientRequest(text: string): ParsedRequest {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { ok: false, id: null, error: 'The message is not valid JSON.' }
  }
  if (!isRecord(value)) {
    return { ok: false, id: null, error: 'Expected an object { id, command, input }.' }
  }
  if (!isRequestId(value.id)) {
    return { ok: false, id: null, error: 'Expected "id" to be a non-negative integer.' }
  }
  if (typeof value.command !== 'string' || value.command === '') {
    return { ok: false, id: value.id, error: 'Expected "command" to be a command name.' }
  }
  return { ok: true, request: { id: value.id, command: value.command, input: value.input } }
}
