import { askRestoreConflict } from '../palette/paletteState'
import { invoke, toast } from '../state/store'

/**
 * Rewinds the session's files to right after step `toSeq` (`session/rewind`). When files changed
 * outside the session since, the core names them: the user is asked, and `confirm` overwrites
 * them (the present is checkpointed first, so an undo brings them back).
 */
export async function rewindFiles(sessionId: string, toSeq: number, confirm = false): Promise<void> {
  let reply
  try {
    reply = await invoke('session/rewind', { sessionId, toSeq, ...(confirm ? { confirm: true } : {}) })
  } catch {
    return // toasted by invoke
  }
  if (reply.status === 'conflict') {
    askRestoreConflict({
      reply,
      title: 'Rewind and overwrite?',
      confirmLabel: 'Overwrite and rewind',
      overwrite: () => void rewindFiles(sessionId, toSeq, true),
    })
    return
  }
  toast(reply.status === 'restored' ? 'info' : 'error', reply.message)
}
