import type { TimelineStep } from '../../../shared/reducer'

/**
 * The actions an error card offers besides Retry, Skip and Dismiss, by the error's code
 * (main/agent/errors.ts): "Open models" where the model's setup is wrong (the server's
 * address, its key, a model to pull), "Switch model" where another model would get past it.
 */
export interface ErrorCardActions {
  openModels: boolean
  switchModel: boolean
}

const SETUP = new Set(['model-unreachable', 'auth', 'bad-response', 'model-not-found'])
const OTHER_MODEL = new Set([
  'quota',
  'rate-limit',
  'server-error',
  'context-overflow',
  'bad-request',
  'model-not-found',
])

type Step = TimelineStep

/**
 * The error that ended the last turn: the last `error` step after the turn before ended.
 * None when the turn ended on an error with no event of its own (checks still failing after
 * the repair rounds): the card then shows the end's message itself.
 */
export function lastTurnError(steps: readonly Step[]): Extract<Step, { kind: 'error' }> | undefined {
  const end = steps.findLastIndex((st) => st.kind === 'finish')
  for (let i = end - 1; i >= 0; i--) {
    const st = steps[i]
    if (st.kind === 'finish') return undefined
    if (st.kind === 'error') return st
  }
  return undefined
}

export function errorActionsFor(code: string | undefined): ErrorCardActions {
  return {
    openModels: code !== undefined && SETUP.has(code),
    switchModel: code !== undefined && OTHER_MODEL.has(code),
  }
}
