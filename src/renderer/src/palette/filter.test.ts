import { describe, expect, it } from 'vitest'
import { filterCommands } from './filter'

const items = [
  { title: 'Help', keywords: 'keyboard shortcuts keys' },
  { title: 'New chat', keywords: 'session start' },
  { title: 'Clear chat', keywords: 'reset' },
  { title: 'Undo last change', keywords: 'revert restore' },
  { title: 'Switch model', keywords: 'provider ollama openai' },
]

describe('filterCommands', () => {
  it('lists everything, in order, for an empty query', () => {
    expect(filterCommands('  ', items).map((i) => i.title)).toEqual(items.map((i) => i.title))
  })
  it('matches fuzzily on the title, best first', () => {
    expect(filterCommands('nch', items)[0].title).toBe('New chat')
    expect(filterCommands('undo', items).map((i) => i.title)).toEqual(['Undo last change'])
  })
  it('answers to keywords too', () => {
    expect(filterCommands('ollama', items).map((i) => i.title)).toEqual(['Switch model'])
    expect(filterCommands('shortcuts', items).map((i) => i.title)).toEqual(['Help'])
  })
  it('finds nothing for nonsense', () => {
    expect(filterCommands('zzqx', items)).toEqual([])
  })
})
