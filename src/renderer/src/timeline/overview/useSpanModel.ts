import { useMemo } from 'react'
import type { TimelineStep } from '../../../../shared/reducer'
import { useApp } from '../../state/store'
import { seqsInRange } from './layout'
import { spansOf, type SpanModel } from './spans'
import { timeWork } from './stats'

/**
 * The open session's spans, built once and carried on as events append (the store
 * concatenates each batch, so the old array is a prefix of the new one). The overview
 * and the brush filter share it.
 */
let current: SpanModel | undefined

export function spanModelOf(events: Parameters<typeof spansOf>[0]): SpanModel {
  current = timeWork(() => spansOf(events, current))
  return current
}

/** The model and its version: the model is mutated in place, so memos key on the version. */
export function useSpanModel(enabled = true): { model: SpanModel | null; version: number } {
  const events = useApp((s) => s.events)
  return useMemo(() => {
    if (!enabled) return { model: null, version: -1 }
    const model = spanModelOf(events)
    return { model, version: model.version }
  }, [events, enabled])
}

/** The rows inside the overview's brushed range (all of them when nothing is brushed). */
export function useBrushedSteps(steps: readonly TimelineStep[]): readonly TimelineStep[] {
  const brush = useApp((s) => s.brush)
  const { model, version } = useSpanModel(brush !== null)
  return useMemo(() => {
    if (!brush || !model) return steps
    const seqs = seqsInRange(model, brush.from, brush.to)
    return steps.filter((s) => seqs.has(s.seq))
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the model changes in place; version says when
  }, [steps, brush, model, version])
}
