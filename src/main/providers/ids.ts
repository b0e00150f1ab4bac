import { randomBytes } from 'node:crypto'

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'

/** An id for a tool call the server sent without one (vLLM, old Ollama, text fallback). */
export function newCallId(): string {
  const bytes = randomBytes(24)
  let id = 'call_'
  for (const b of bytes) id += ALPHABET[b % ALPHABET.length]
  return id
}
