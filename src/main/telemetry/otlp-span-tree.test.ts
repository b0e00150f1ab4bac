import { describe, expect, it } from 'vitest'
import type { TraceSpan } from './otlp-attributes'
import { createSpanTree } from './otlp-span-tree'

const at = (ts: number, seq: number) => ({ ts, seq })

describe('the span tree', () => {
  it('opens the session with the first turn, numbers turns, and ends children before parents', () => {
    const ended: TraceSpan[] = []
    const tree = createSpanTree('s1', (span) => ended.push(span))
    const first = tree.ensureTurn(at(100, 1))
    expect(tree.ensureTurn(at(150, 2))).toBe(first)
    expect(tree.readyAt).toBe(100)
    tree.addUsage({ inputTokens: 3, outputTokens: 4 })
    tree.endTurn(200)
    const second = tree.ensureTurn(at(300, 5))
    expect(second.name).toBe('turn 2')
    tree.addUsage({ inputTokens: 1, outputTokens: 1 })
    tree.finish(400)

    expect(ended.map((s) => s.name)).toEqual(['turn 1', 'turn 2', 'invoke_agent stepwise'])
    const [t1, t2, session] = ended
    expect(t1.parentSpanId).toBe(session.spanId)
    expect(t1.attributes['gen_ai.usage.input_tokens']).toBe(3)
    expect(session.attributes['gen_ai.usage.input_tokens']).toBe(4)
    expect(session.attributes['gen_ai.usage.output_tokens']).toBe(5)
    expect([t1.startMs, t1.endMs, t2.startMs, t2.endMs, session.startMs]).toEqual([100, 200, 300, 400, 100])
  })

  it('never ends a span before it started, and puts moments between turns on the session', () => {
    const ended: TraceSpan[] = []
    const tree = createSpanTree('s1', (span) => ended.push(span))
    tree.eventOn(tree.current(50), 'stepwise.checkpoint', 50, {})
    const turn = tree.ensureTurn(at(100, 2))
    expect(tree.current(120)).toBe(turn)
    tree.endTurn(90)
    tree.finish(80)
    expect(ended.map((s) => [s.name, s.startMs, s.endMs])).toEqual([
      ['turn 1', 100, 100],
      ['invoke_agent stepwise', 50, 80],
    ])
    expect(ended[1].events.map((e) => e.name)).toEqual(['stepwise.checkpoint'])
  })
})
