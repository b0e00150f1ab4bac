/*
 * Puts text in the message box from elsewhere (a starter prompt in an empty chat) without the message
 * box's text living in the store: the box listens while it is mounted.
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
