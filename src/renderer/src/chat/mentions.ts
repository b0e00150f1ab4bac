import fuzzysort from 'fuzzysort'

/** The `@word` being typed at the caret, if any: where it starts and what follows the `@`. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret)
  const match = /(^|\s)@([^\s@]*)$/.exec(before)
  if (!match) return null
  return { start: caret - match[2].length - 1, query: match[2] }
}

/** Replaces the mention being typed with `@path ` and returns the new text and caret. */
export function insertMention(
  text: string,
  mention: { start: number; query: string },
  path: string,
): { text: string; caret: number } {
  const end = mention.start + 1 + mention.query.length
  const inserted = `@${path} `
  return {
    text: text.slice(0, mention.start) + inserted + text.slice(end),
    caret: mention.start + inserted.length,
  }
}

/** Best file matches for a query: fuzzy on the path, shorter paths first when the query is empty. */
export function matchFiles(files: readonly string[], query: string, limit = 8): string[] {
  if (!query) return [...files].sort((a, b) => a.length - b.length || a.localeCompare(b)).slice(0, limit)
  return fuzzysort.go(query, files, { limit, threshold: 0.2 }).map((r) => r.target)
}

/**
 * Input history: ↑ walks back through sent messages and ↓ forward, keeping the
 * draft that was being typed so ↓ past the newest brings it back.
 */
export class InputHistory {
  private index: number
  private draft = ''

  constructor(private readonly entries: string[] = []) {
    this.index = entries.length
  }

  /** The sent messages, oldest first. */
  list(): readonly string[] {
    return this.entries
  }

  push(text: string): void {
    if (text && this.entries.at(-1) !== text) this.entries.push(text)
    this.index = this.entries.length
    this.draft = ''
  }

  previous(current: string): string | null {
    if (this.index === 0) return null
    if (this.index === this.entries.length) this.draft = current
    this.index -= 1
    return this.entries[this.index]
  }

  next(): string | null {
    if (this.index >= this.entries.length) return null
    this.index += 1
    return this.index === this.entries.length ? this.draft : this.entries[this.index]
  }
}
