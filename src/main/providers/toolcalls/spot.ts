import { escapeRegExp } from '../../../shared/regexp'

/**
 * Tool names showing in text that streams in pieces. A call written as text is read only once the
 * answer is whole (index.ts), but in every format family its tool's name appears as it streams —
 * `"name": "run_command"`, `<function=run_command>`, `[run_command(…)]`, `functions.run_command:0`,
 * `<tool_call>run_command` — so the agent can start what the call will need before it is whole
 * (agent/tool-runner.ts). A name counts as a whole word: not inside a longer identifier
 * (`rerun_command`, `run_commands`) nor followed by `.` or `-` (a file such as `build.sh`); so it is
 * judged once the character after it has come.
 */
export interface NameSpotter {
  /** The next piece of text; answers the first name this piece completed, if any. */
  push(piece: string): string | undefined
}

export function spotToolNames(names: readonly string[]): NameSpotter {
  if (names.length === 0) return { push: () => undefined }
  const longestFirst = [...names].sort((a, b) => b.length - a.length)
  const alternatives = longestFirst.map(escapeRegExp).join('|')
  const word = new RegExp(`(?<![\\w-])(?:${alternatives})(?=[^\\w.-])`, 'g')
  // Enough of the text so far for a name not yet judged and the character before it.
  const keep = longestFirst[0].length + 1
  let tail = ''
  return {
    push(piece) {
      const text = tail + piece
      // A name whose next character was already there was judged by an earlier piece.
      const judged = tail.length
      tail = text.slice(-keep)
      for (const match of text.matchAll(word)) if (match.index + match[0].length >= judged) return match[0]
      return undefined
    },
  }
}
