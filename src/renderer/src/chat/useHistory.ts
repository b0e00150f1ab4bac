import { useMemo } from 'react'
import { loadHistory, saveHistory } from './history'
import type { InputHistory } from './mentions'

/**
 * The message box's history: ↑ at the first line brings back the previous message, ↓ at the last
 * line the next one (and finally what was being typed); sent messages are kept per project.
 */

/** Where the box's caret is: the text and its selection, as a textarea has them. */
export interface CaretPlace {
  value: string
  selectionStart: number
  selectionEnd: number
}

/**
 * The text ↑ or ↓ puts in the box, or null when the key is the textarea's own (a line to move
 * to, or nothing further in the history). `text` is what the box holds now.
 */
export function historyStep(history: InputHistory, key: string, at: CaretPlace, text: string): string | null {
  if (key === 'ArrowUp' && !at.value.slice(0, at.selectionStart).includes('\n')) return history.previous(text)
  if (key === 'ArrowDown' && !at.value.slice(at.selectionEnd).includes('\n')) return history.next()
  return null
}

export interface MessageHistory {
  /** Keeps a sent message (or a command run from the box). */
  remember(message: string): void
  /** `historyStep` on this project's history. */
  step(key: string, at: CaretPlace, text: string): string | null
}

export function useHistory(repo: string | undefined): MessageHistory {
  return useMemo(() => {
    const history = loadHistory(repo ?? '')
    return {
      remember(message) {
        history.push(message)
        if (repo) saveHistory(repo, history)
      },
      step: (key, at, text) => historyStep(history, key, at, text),
    }
  }, [repo])
}
