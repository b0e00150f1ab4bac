import { invoke, toast, useApp } from '../state/store'
import { rewindFiles } from '../replay/rewind'
import { askRestoreConflict } from './paletteState'

/**
 * Undo the agent's last change (`session/undo`). When files changed since, the core answers
 * `conflict` with their names: the palette asks, and `confirm` sends it again to overwrite them.
 */
export async function undoLastChange(confirm = false): Promise<void> {
  const { sessionId } = useApp.getState()
  if (!sessionId) {
    toast('info', 'Open a chat first: undo takes back its last change.')
    return
  }
  let reply
  try {
    reply = await invoke('session/undo', { sessionId, ...(confirm ? { confirm: true } : {}) })
  } catch {
    return // toasted by invoke
  }
  if (reply.status === 'conflict') {
    askRestoreConflict({
      reply,
      title: 'Undo and overwrite?',
      confirmLabel: 'Overwrite and undo',
      overwrite: () => void undoLastChange(true),
    })
    return
  }
  // A second undo goes further back: taking this one back is a rewind to the step before it
  // (of this session, even if another is open by the time the button is pressed).
  const seq = reply.status === 'restored' ? reply.seq : undefined
  const takeBack =
    seq === undefined ? undefined : { label: 'Take back', run: () => void rewindFiles(sessionId, seq - 1) }
  toast(reply.status === 'refused' ? 'error' : 'info', reply.message, takeBack)
}
