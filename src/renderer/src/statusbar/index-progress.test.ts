import { describe, expect, it } from 'vitest'
import { indexProgressView, nextBuilds, type IndexProgressNotice } from './IndexProgress'

const notice = (p: Partial<IndexProgressNotice>): IndexProgressNotice => ({
  type: 'host.index-progress',
  root: '/p',
  phase: 'indexing',
  done: 0,
  total: 0,
  ...p,
})

describe('index progress in the status bar', () => {
  it('labels each phase, with a share once the files are counted', () => {
    expect(indexProgressView(notice({ phase: 'listing' }))).toEqual({
      label: 'Indexing: listing files…',
      share: null,
    })
    expect(indexProgressView(notice({ phase: 'loading', total: 70_000 })).label).toBe(
      'Indexing: loading 70,000 files…',
    )
    expect(indexProgressView(notice({ done: 17_500, total: 70_000 }))).toEqual({
      label: 'Indexing 17,500/70,000',
      share: 0.25,
    })
  })

  it('keeps the latest progress per project and drops a finished build', () => {
    let builds = nextBuilds({}, notice({ done: 10, total: 100 }))
    builds = nextBuilds(builds, notice({ root: '/q', phase: 'listing' }))
    builds = nextBuilds(builds, notice({ done: 50, total: 100 }))
    expect(builds['/p'].done).toBe(50)
    builds = nextBuilds(builds, notice({ phase: 'done', done: 100, total: 100 }))
    expect(Object.keys(builds)).toEqual(['/q'])
    // Other messages leave it alone.
    expect(nextBuilds(builds, { type: 'host.turn-ended', sessionId: 's' })).toBe(builds)
  })
})
