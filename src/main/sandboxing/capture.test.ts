import { describe, expect, it } from 'vitest'
import { OutputCapture, truncatedBytesMarker } from './capture'

const limits = { headBytes: 10, tailBytes: 10, streamBytes: 1000, flushBytes: 1, flushMs: 1 }

describe('OutputCapture', () => {
  it('keeps everything while it fits', () => {
    const c = new OutputCapture(undefined, limits)
    c.push('stdout', Buffer.from('hello '))
    c.push('stderr', Buffer.from('world'))
    c.end()
    expect([c.text(), c.total, c.omitted]).toEqual(['hello world', 11, 0])
  })

  it('keeps the head and the tail with a marker between', () => {
    const c = new OutputCapture(undefined, limits)
    for (let i = 0; i < 100; i++) c.push('stdout', Buffer.from(`${i % 10}`.repeat(7)))
    c.end()
    expect(c.text()).toBe(`0000000111\n${truncatedBytesMarker(680)}\n8889999999`)
    expect([c.total, c.omitted]).toEqual([700, 680])
  })

  it('decodes a character split across chunks, and invalid bytes as U+FFFD', () => {
    const seen: string[] = []
    const c = new OutputCapture((_s, t) => seen.push(t), { ...limits, headBytes: 100 })
    const euro = Buffer.from('€')
    c.push('stdout', euro.subarray(0, 1))
    c.push('stdout', Buffer.concat([euro.subarray(1), Buffer.from([0xff, 0x41])]))
    c.end()
    expect(c.text()).toBe('€\uFFFDA')
    expect(seen.join('')).toBe('€\uFFFDA')
  })

  it('never cuts a character at the head or tail edge', () => {
    const c = new OutputCapture(undefined, { ...limits, headBytes: 4, tailBytes: 4 })
    c.push('stdout', Buffer.from('ééééééé'))
    c.end()
    expect(c.text()).toBe(`éé\n${truncatedBytesMarker(6)}\néé`)
  })

  it('stops streaming past its limit and says so', () => {
    const seen: string[] = []
    const c = new OutputCapture((_s, t) => seen.push(t), { ...limits, streamBytes: 5 })
    c.push('stdout', Buffer.from('abc'))
    c.push('stdout', Buffer.from('defgh'))
    c.push('stdout', Buffer.from('ijk'))
    c.end()
    expect(seen.join('')).toMatch(/^abcdefgh\n\[TRUNCATED: streaming stopped after 5 bytes; /)
    expect(seen.join('')).not.toContain('ijk')
  })
})
