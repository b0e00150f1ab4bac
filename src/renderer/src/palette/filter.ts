import fuzzysort from 'fuzzysort'

/** What the palette filters: a title and words it should also answer to. */
export interface Searchable {
  title: string
  keywords?: string
}

/** The items matching `query`, best first (fuzzy: "nch" finds "New chat"); all, in order, for none. */
export function filterCommands<T extends Searchable>(query: string, items: readonly T[]): T[] {
  const q = query.trim()
  if (!q) return [...items]
  return fuzzysort
    .go(q, items, { keys: ['title', (item: T) => item.keywords ?? ''], threshold: 0.3 })
    .map((r) => r.obj)
}
