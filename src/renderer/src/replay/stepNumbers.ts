import type { StepwiseEvent } from '../../../shared/protocol'
import { stepNumberAfter, stepNumberAt, stepsOf, type Step } from '../../../shared/steps'
import { useApp } from '../state/store'

/**
 * The open session's step numbers (shared/steps.ts) for what the app shows: the number a row's
 * event belongs to, or where the state after an event stands — the same numbers the replay bar,
 * `/rewind N` and the CLI use. Computed once per event list.
 */
const cache = new WeakMap<readonly StepwiseEvent[], Step[]>()
function stepsFor(events: readonly StepwiseEvent[]): Step[] {
  let steps = cache.get(events)
  if (!steps) cache.set(events, (steps = stepsOf(events)))
  return steps
}

/** The step the event `seq` belongs to (0: the session's start). */
export function useStepNumberAt(seq: number): number {
  const events = useApp((s) => s.events)
  return events[0]?.seq === seq ? 0 : stepNumberAt(stepsFor(events), seq)
}

/** The step the state right after event `seq` stands on (a rewind's target). */
export function useStepNumberAfter(seq: number): number {
  return stepNumberAfter(stepsFor(useApp((s) => s.events)), seq)
}
