import { describe, expect, it } from 'vitest'
import { HISTORY_LIMIT, loadHistory, saveHistory, type KeyValueStore } from './history'

function memoryStore(): KeyValueStore & { data: Map<string, string> } {
  const data = new Map<string, string>()
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) }
}

describe('message history per project', () => {
  it('comes back after a restart, for the same project only', () => {
    const store = memoryStore()
    const first = loadHistory('/p/one', store)
    first.push('fix the tests')
    first.push('/undo')
    saveHistory('/p/one', first, store)

    const again = loadHistory('/p/one', store)
    expect(again.previous('draft')).toBe('/undo')
    expect(again.previous('')).toBe('fix the tests')
    expect(again.next()).toBe('/undo')
    expect(again.next()).toBe('draft')
    expect(loadHistory('/p/two', store).previous('')).toBeNull()
  })

  it('keeps the newest entries and survives damaged storage', () => {
    const store = memoryStore()
    const h = loadHistory('/p', store)
    for (let i = 0; i < HISTORY_LIMIT + 5; i++) h.push(`m${i}`)
    saveHistory('/p', h, store)
    const saved = JSON.parse(store.data.get('stepwise.input-history:/p')!) as string[]
    expect(saved).toHaveLength(HISTORY_LIMIT)
    expect(saved.at(-1)).toBe(`m${HISTORY_LIMIT + 4}`)

    store.setItem('stepwise.input-history:/bad', '{not json')
    expect(loadHistory('/bad', store).previous('')).toBeNull()
    store.setItem('stepwise.input-history:/mixed', JSON.stringify(['ok', 3, null]))
    expect(loadHistory('/mixed', store).list()).toEqual(['ok'])
  })
})
