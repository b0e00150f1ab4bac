// The IPC contract between the preload bridge and the main process. Imported by both sides, so it
// holds only constants and types: a sandboxed preload cannot load anything but `electron` at runtime.

/** Renderer → main: one command, answered with an `InvokeReply`. Names carry their direction. */
export const INVOKE_CHANNEL = 'renderer:invoke'

/** Main → renderer: one core event per message. */
export const EVENT_CHANNEL = 'main:event'

/**
 * Errors travel as values: Electron rewrites a thrown error into "Error invoking remote method …",
 * which is not a message for the user.
 */
export type { InvokeReply } from '../../../shared/protocol/wire'
