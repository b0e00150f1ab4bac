/*
 * Puts text in the message box from elsewhere (a starter prompt in an empty chat) without the message
 * box's text living in the store: the box listens while it is mounted. Also keeps what was left
 * half-typed in a chat while another one is open.
 */

type Listener = (text: string) => void
const listeners = new Set<Listener>()

/** Replaces the message box's text and focuses it. */
export function setDraft(text: string): void {
  for (const listener of listeners) listener(text)
}

export function onDraft(listener: Listener): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** Half-typed messages of the chats not open now, by session id (for this window's life). */
const kept = new Map<string, string>()

export function keepDraft(sessionId: string, text: string): void {
  if (text.trim()) kept.set(sessionId, text)
  else kept.delete(sessionId)
}

/** The text left half-typed in this chat, once ('' when none). */
export function takeDraft(sessionId: string): string {
  const text = kept.get(sessionId) ?? ''
  kept.delete(sessionId)
  return text
}
