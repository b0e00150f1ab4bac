import { describe, expect, it } from 'vitest'
import { formatIndexProgress, indexProgressLine } from './index-progress'

function stream(isTTY: boolean): { out: NodeJS.WriteStream; written: string[] } {
  const written: string[] = []
  const out = { isTTY, write: (s: string) => (written.push(s), true) } as unknown as NodeJS.WriteStream
  return { out, written }
}

describe('the index progress line', () => {
  it('shows a bar with the share and the count of files', () => {
    expect(formatIndexProgress({ phase: 'listing', done: 0, total: 0 })).toBe('code index: listing files…')
    expect(formatIndexProgress({ phase: 'indexing', done: 17_500, total: 70_000 })).toBe(
      `code index ${'█'.repeat(6)}${'░'.repeat(18)} 25% 17,500/70,000 files`,
    )
  })

  it('draws in place on a terminal and clears itself when the build is done', () => {
    const tty = stream(true)
    const line = indexProgressLine(tty.out)
    line.update({ phase: 'indexing', done: 1, total: 2 })
    line.update({ phase: 'done', done: 2, total: 2 })
    line.close()
    expect(tty.written).toHaveLength(2)
    expect(tty.written[0].startsWith('\r')).toBe(true)
    expect(tty.written[0]).toContain('1/2 files')
    expect(tty.written[0].endsWith('\x1b[K')).toBe(true)
    expect(tty.written[1]).toBe('\r\x1b[K')
  })

  it('writes nothing when stderr is not a terminal', () => {
    const piped = stream(false)
    const line = indexProgressLine(piped.out)
    line.update({ phase: 'indexing', done: 1, total: 2 })
    line.close()
    expect(piped.written).toEqual([])
  })
})
