import { describe, expect, it } from 'vitest'
import { axisOf, buildAxis, fromAxis, GAP_MS, GAP_SHOWN_MS, tickLabel, tickStep, toAxis } from './axis'
import {
  barWindow,
  eventCountAt,
  eventCountOfSeq,
  GUTTER,
  hitTest,
  pxOfTime,
  rowsOf,
  seqsInRange,
  timeOfPx,
  visibleSpans,
  type Scale,
} from './layout'
import { FIRST_TOOL_LANE, MODEL_LANE, spansOf } from './spans'
import { richSession } from './fixtures'
import { FIT, follow, pan, resolve, reveal, zoom } from './view'

describe('axis', () => {
  it('folds idle gaps longer than GAP_MS and maps both ways', () => {
    const hour = 3_600_000
    const axis = buildAxis(
      [
        [0, 1000],
        [500, 2000],
        [2000 + hour, 2000 + hour + 500],
      ],
      0,
      2000 + hour + 500,
    )
    expect(axis.gaps).toEqual([{ from: 2000, to: 2000 + hour, x: 2000 }])
    expect(axis.total).toBe(2000 + GAP_SHOWN_MS + 500)
    for (const t of [0, 700, 2000, 2000 + hour / 2, 2000 + hour, 2000 + hour + 400])
      expect(fromAxis(axis, toAxis(axis, t))).toBeCloseTo(t, 6)
    // A gap just under the limit stays to scale.
    expect(
      buildAxis(
        [
          [0, 10],
          [10 + GAP_MS - 1, GAP_MS + 20],
        ],
        0,
        GAP_MS + 20,
      ).gaps,
    ).toEqual([])
  })

  it('grows to now while something runs', () => {
    const model = spansOf(richSession().slice(0, 8))
    expect(model.live).toBe(true)
    expect(axisOf(model, 9000).end).toBe(9000)
    const done = spansOf(richSession())
    expect(axisOf(done, 99_000).end).toBe(7410)
    expect(axisOf(done, 99_000).total).toBe(7410 - 1000)
  })

  it('picks tick steps far enough apart and labels them', () => {
    expect(tickStep(10, 60)).toBe(1000)
    expect(tickStep(0.01, 60)).toBe(1)
    expect(tickLabel(1500, 500)).toBe('1.5 s')
    expect(tickLabel(125_000, 5000)).toBe('2:05')
    expect(tickLabel(250, 50)).toBe('250 ms')
  })
})

describe('view', () => {
  it('zooms around the anchor, clamps to the session, and goes back to fit when zoomed out', () => {
    const zoomed = zoom(FIT, 1000, 0.5, 0.5)
    expect(zoomed.fit).toBe(false)
    const { x0, x1 } = resolve(zoomed, 1000)
    expect(x1 - x0).toBeCloseTo(510)
    expect((x0 + x1) / 2).toBeCloseTo(510)
    expect(zoom(zoomed, 1000, 4)).toEqual(FIT)
    // Panning stops a little past the end.
    const panned = pan(zoomed, 1000, 10_000)
    expect(panned.x1).toBeLessThanOrEqual(1000 + (panned.x1 - panned.x0) * 0.1 + 1e-9)
    expect(pan(FIT, 1000, 100)).toEqual(FIT)
  })

  it('follows the end while a turn grows, not after the user panned back', () => {
    const atEnd = { x0: 800, x1: 1000, fit: false }
    expect(follow(atEnd, 1000, 1100)).toEqual({ x0: 900, x1: 1100, fit: false })
    const back = { x0: 100, x1: 300, fit: false }
    expect(follow(back, 1000, 1100)).toBe(back)
  })

  it('reveals a range by panning just enough', () => {
    const v = { x0: 0, x1: 100, fit: false }
    expect(reveal(v, 1000, 10, 20)).toBe(v)
    const moved = reveal(v, 1000, 500, 520)
    expect(moved.x0).toBeLessThanOrEqual(500)
    expect(moved.x1).toBeGreaterThanOrEqual(520)
    expect(moved.x1 - moved.x0).toBeCloseTo(100)
  })
})

describe('layout', () => {
  const model = spansOf(richSession())
  const axis = axisOf(model, 0)
  const scale: Scale = { axis, x0: 0, x1: axis.total, plotW: 640 }
  const { rows } = rowsOf(model)

  it('has a row per lane, then marks, tokens and files, stacked without overlap', () => {
    // The session's tool calls never overlap: one tool lane.
    expect(rows.map((r) => r.id)).toEqual(['turns', 'model', 'tools', 'marks', 'tokens', 'files'])
    for (let i = 1; i < rows.length; i++)
      expect(rows[i].y).toBeGreaterThanOrEqual(rows[i - 1].y + rows[i - 1].h)
  })

  it('finds the bar under the pointer and nothing in empty space', () => {
    const tools = rows.find((r) => r.lane === FIRST_TOOL_LANE)!
    const command = model.spans.find((s) => s.kind === 'command')!
    const mid = (pxOfTime(scale, command.start) + pxOfTime(scale, command.end!)) / 2
    expect(hitTest({ model, scale, rows, now: 0 }, mid, tools.y + 5)?.span).toBe(command)
    const modelRow = rows.find((r) => r.lane === MODEL_LANE)!
    expect(hitTest({ model, scale, rows, now: 0 }, mid, modelRow.y + 5)).toBeNull()
    expect(hitTest({ model, scale, rows, now: 0 }, GUTTER - 5, tools.y + 5)).toBeNull()
    const marks = rows.find((r) => r.id === 'marks')!
    const cp = model.marks[0]
    expect(hitTest({ model, scale, rows, now: 0 }, pxOfTime(scale, cp.ts) + 2, marks.y + 4)?.mark).toBe(cp)
    expect(timeOfPx(scale, pxOfTime(scale, 3000))).toBeCloseTo(3000, 6)
  })

  it('draws only the spans of a window, with the ones reaching into it', () => {
    const lane = FIRST_TOOL_LANE
    const names = (t0: number, t1: number) => visibleSpans(model, lane, t0, t1).map((s) => s.name)
    expect(names(6000, 6100)).toEqual(['write_file c.ts'])
    expect(names(6235, 6300)).toEqual(['run_command npm test'])
    expect(names(6100, 6300)).toEqual(['write_file c.ts', 'run_command npm test'])
    expect(names(0, 1000)).toEqual([])
    expect(names(0, 99_999)).toHaveLength(model.lanes[lane].length)
  })

  it('windows the accessible bar list around the focused bar', () => {
    expect(barWindow(10, 3, 300)).toEqual([0, 10])
    expect(barWindow(10_000, 0, 300)).toEqual([0, 300])
    expect(barWindow(10_000, 5000, 300)).toEqual([4850, 5150])
    expect(barWindow(10_000, 9999, 300)).toEqual([9700, 10_000])
  })

  it('brushes a time range into the steps in it', () => {
    const seqs = seqsInRange(model, 6000, 7350)
    const named = model.spans.filter((s) => seqs.has(s.seq)).map((s) => s.kind)
    expect(named).toEqual(['turn', 'tool', 'command', 'compaction'])
    expect(seqsInRange(model, 7405, 7500).has(model.marks.at(-1)!.seq)).toBe(true)
  })

  it('turns a time or a step into a replay position', () => {
    expect(eventCountAt(model, 999)).toBe(0)
    expect(eventCountAt(model, 1000)).toBe(2)
    expect(eventCountAt(model, 99_999)).toBe(model.eventTs.length)
    expect(eventCountOfSeq(model, 5)).toBe(6)
  })
})
