import { create } from 'zustand'
import { invoke, NO_OPEN_SESSION, refreshSessions, toast, useApp, type SessionSummary } from '../state/store'

/** Deleting and renaming chats from the session list. */

/** The chat whose deletion waits for the user's yes (the list shows the question). */
export const useSessionEdit = create<{ confirmDelete: SessionSummary | null; renaming: string | null }>(
  () => ({ confirmDelete: null, renaming: null }),
)

export function askDelete(session: SessionSummary): void {
  useSessionEdit.setState({ confirmDelete: session })
}

export function cancelDelete(): void {
  useSessionEdit.setState({ confirmDelete: null })
}

/**
 * Deletes the chat softly: it leaves the list at once, and the toast's Undo brings it back while
 * the core keeps it (`restorableUntil`). An open chat closes first.
 */
export async function confirmDelete(): Promise<void> {
  const session = useSessionEdit.getState().confirmDelete
  useSessionEdit.setState({ confirmDelete: null })
  if (!session) return
  let reply
  try {
    reply = await invoke('session/delete', { sessionIds: [session.id] })
  } catch {
    return // toasted by invoke (a running chat is refused)
  }
  if (useApp.getState().sessionId === session.id) useApp.setState(NO_OPEN_SESSION)
  await refreshSessions()
  const minutes = Math.max(1, Math.round((reply.restorableUntil - Date.now()) / 60_000))
  toast('info', `Deleted “${session.title}”. Undo brings it back (for ${minutes} min).`, {
    label: 'Undo',
    run: () => void restoreSession(session.id, session.title),
  })
}

async function restoreSession(id: string, title: string): Promise<void> {
  const { restored } = await invoke('session/restore', { sessionIds: [id] })
  await refreshSessions()
  toast(
    restored.length > 0 ? 'info' : 'error',
    restored.length > 0 ? `Restored “${title}”.` : `“${title}” is gone for good.`,
  )
}

export function startRename(id: string): void {
  useSessionEdit.setState({ renaming: id })
}

export function stopRename(): void {
  useSessionEdit.setState({ renaming: null })
}

/** Renames the chat; an empty or unchanged title changes nothing. */
export async function rename(session: SessionSummary, title: string): Promise<void> {
  stopRename()
  const next = title.trim()
  if (!next || next === session.title) return
  try {
    await invoke('session/rename', { sessionId: session.id, title: next })
  } catch {
    return
  }
  await refreshSessions()
}
