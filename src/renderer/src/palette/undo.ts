import { invoke, toast, useApp } from '../state/store'
import { usePalette } from './paletteState'

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
    usePalette.setState({ undoConflict: reply })
    return
  }
  // A second undo goes further back: taking this one back is a rewind to the step before it.
  const seq = reply.status === 'restored' ? reply.seq : undefined
  const takeBack = seq === undefined ? undefined : { label: 'Take back', run: () => void takeBackUndo(seq) }
  toast(reply.status === 'refused' ? 'error' : 'info', reply.message, takeBack)
}

/** Puts the files back as they were before the undo recorded at `seq` (itself undoable). */
async function takeBackUndo(seq: number, confirm = false): Promise<void> {
  const { sessionId } = useApp.getState()
  if (!sessionId) return
  let reply
  try {
    reply = await invoke('session/rewind', {
      sessionId,
      toSeq: seq - 1,
      ...(confirm ? { confirm: true } : {}),
    })
  } catch {
    return // toasted by invoke
  }
  if (reply.status === 'conflict') {
    if (window.confirm(`${reply.message}\n\n${reply.conflicts.join('\n')}`)) await takeBackUndo(seq, true)
    return
  }
  toast(reply.status === 'refused' ? 'error' : 'info', reply.message)
}

export function cancelUndo(): void {
  usePalette.setState({ undoConflict: null })
}

export function confirmUndo(): void {
  usePalette.setState({ undoConflict: null })
  void undoLastChange(true)
}
