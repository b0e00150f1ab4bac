import type { ApprovalPolicy } from '../../shared/protocol'
import type { TurnOutcome } from '../agent/loop'
import { Session, type SessionSetup as OpenSetup } from './session'
import type { TurnOptions } from './turn'

export { DEFAULT_LIMITS, DEFAULT_MAX_STEPS } from './turn'
export { closeSnapshotters, prepareBaseline, snapshotterFor } from './snapshotters'

/**
 * One session and one turn in a call, for a caller with a single task: a fork's re-run
 * (timetravel/fork.ts), a review (review/review.ts), the benches and tests. It is
 * session.ts's Session underneath — the same life cycle as the service's chats.
 */
export interface SessionSetup
  extends
    OpenSetup,
    Pick<TurnOptions, 'limits' | 'commands' | 'mcp' | 'audience' | 'repair' | 'maxToolCalls'> {
  /**
   * Continue a session that already exists (a fork) instead of opening one: no new row,
   * baseline or `session.started`; the turn continues from its stored events, without a new
   * user message — unless `message` is set: the user's next message.
   */
  resume?: { sessionId: string; message?: string }
}

export interface StartedSession {
  sessionId: string
  /** What the user should know before the run (a project too big to index whole, …). */
  notices: string[]
  /** Runs the task the session was opened with, to its end. */
  run(signal: AbortSignal): Promise<TurnOutcome>
  /** Changes the approval policy, for the running task too (the user switched it in the app). */
  setPolicy(policy: ApprovalPolicy): void
}

/** Opens (or loads, with `resume`) a session and prepares its one turn: `run` runs it. */
export async function startSession(
  store: Parameters<typeof Session.create>[0],
  setup: SessionSetup & { task: string },
): Promise<StartedSession> {
  const session = setup.resume
    ? await Session.load(store, setup.resume.sessionId, setup)
    : await Session.create(store, { ...setup, title: setup.task }, { eager: true })
  const notices = await session.prepare()
  const message = setup.resume ? setup.resume.message : setup.task
  return {
    sessionId: session.id,
    notices,
    setPolicy: (policy) => session.setPolicy(policy),
    run: (signal) =>
      session.runTurn({
        message,
        kind: message === undefined ? 'continue' : 'message',
        repair: setup.repair,
        maxSteps: setup.maxSteps,
        maxToolCalls: setup.maxToolCalls,
        limits: setup.limits,
        commands: setup.commands,
        mcp: setup.mcp,
        audience: setup.audience,
        signal,
      }),
  }
}
