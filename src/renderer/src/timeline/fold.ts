import type { CheckpointStep, TimelineStep } from '../../../shared/reducer'

/*
 * A checkpoint belongs to the call that changed the files: the timeline shows it in that call's row
 * (what changed, and a warning for files that instruct agents), not as a row of its own. A
 * checkpoint whose call is not among the rows (filtered away, or none) keeps its own row.
 */

type ToolStep = Extract<TimelineStep, { kind: 'tool' }>

// Rows are memoised by step identity: the same call and checkpoint give the same folded object.
const foldedCache = new WeakMap<ToolStep, { checkpoint: CheckpointStep; step: ToolStep }>()

function folded(step: ToolStep, checkpoint: CheckpointStep): ToolStep {
  const cached = foldedCache.get(step)
  if (cached?.checkpoint === checkpoint) return cached.step
  const next = { ...step, checkpoint }
  foldedCache.set(step, { checkpoint, step: next })
  return next
}

/** The rows with each checkpoint folded into its call's row. Returns `steps` itself when none folds. */
export function foldCheckpoints(steps: readonly TimelineStep[]): readonly TimelineStep[] {
  const toolAt = new Map<string, number>()
  const folds = new Map<number, CheckpointStep>()
  steps.forEach((step, i) => {
    if (step.kind === 'tool') toolAt.set(step.callId, i)
    else if (step.kind === 'checkpoint' && step.callId !== undefined) {
      const at = toolAt.get(step.callId)
      if (at !== undefined) folds.set(at, step)
    }
  })
  if (folds.size === 0) return steps
  const out: TimelineStep[] = []
  steps.forEach((step, i) => {
    if (
      step.kind === 'checkpoint' &&
      step.callId !== undefined &&
      folds.get(toolAt.get(step.callId) ?? -1) === step
    )
      return
    const checkpoint = folds.get(i)
    out.push(checkpoint && step.kind === 'tool' ? folded(step, checkpoint) : step)
  })
  return out
}

/** The checkpoint taken after `callId`, from a session's (unfolded) steps. */
export function checkpointOf(steps: readonly TimelineStep[], callId: string): CheckpointStep | undefined {
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i]
    if (step.kind === 'checkpoint' && step.callId === callId) return step
  }
  return undefined
}
