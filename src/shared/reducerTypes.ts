import type {
  ApprovalRule,
  Finding,
  FinishReason,
  StepwiseEvent,
  SubjectOf,
  ToolAttachment,
  ToolCall,
  Usage,
} from './protocol'

/*
 * What a session looks like once its events are reduced (reducer.ts): the timeline's steps and the
 * session's state. Shared by the live UI, replay and the CLI's `sessions show`.
 */

export type StepStatus = 'running' | 'waiting' | 'ok' | 'error' | 'rejected'

export type TimelineStep =
  /** `queued`: sent while the agent worked, delivered at a step boundary. */
  | { kind: 'user'; seq: number; ts: number; text: string; queued?: boolean }
  | {
      kind: 'model'
      seq: number
      ts: number
      step: number
      text: string
      toolCalls: ToolCall[]
      usage?: Usage
      durationMs?: number
      /** `interrupted`: the turn ended (stopped, failed, its process gone) before the answer was whole. */
      status: 'streaming' | 'ok' | 'interrupted'
      retries: number
      /** A retry began: the next delta starts the text anew (until then the last attempt's stays). */
      restart?: true
      /** The model that answered (a session can switch model between turns). */
      model?: string
    }
  | ToolStep
  | {
      kind: 'checkpoint'
      seq: number
      ts: number
      snapshotId: number
      paths: string[]
      callId?: string
      /** Files that instruct agents, changed here without the user approving that change. */
      agentFiles?: string[]
      /**
       * Files under ignored folders (node_modules/, build output) this step's command changed:
       * what the checkpoint's record says anew against the record before it.
       */
      ignored?: IgnoredFileChange[]
    }
  | {
      kind: 'compaction'
      seq: number
      ts: number
      beforeTokens: number
      afterTokens: number
      /** What the model wrote in place of the older messages. */
      summary?: string
      /** Asked for by the user (`/compact`), with what they asked it to keep. */
      onRequest?: { focus?: string }
    }
  | { kind: 'error'; seq: number; ts: number; message: string; code: string; hint?: string }
  | { kind: 'finding'; seq: number; ts: number; finding: Finding }
  | {
      kind: 'restore'
      seq: number
      ts: number
      restore: 'undo' | 'rewind' | 'fork'
      snapshotId: number
      savedSnapshotId: number
      toSeq?: number
      paths: string[]
    }
  | { kind: 'fork'; seq: number; ts: number; childSessionId: string; atSeq: number; atStep?: number }
  /** The user switched the model (from the next turn): the mark the timeline shows between turns. */
  | {
      kind: 'switch'
      seq: number
      ts: number
      provider: string
      model: string
      baseUrl?: string
      /** What ran before, when the session had said (a fork of an older session may not). */
      from?: { provider: string; model: string }
    }
  /** A run (a task, or one chat turn) ended: done, stopped by the user, the step limit, an error. */
  | {
      kind: 'finish'
      seq: number
      ts: number
      reason: FinishReason
      message?: string
      modelSteps: number
      usage: Usage
      durationMs: number
    }
  /** Tool-call markup the model wrote could not be read; `repair` is what the model was asked. */
  | {
      kind: 'unparsed-call'
      seq: number
      ts: number
      step: number
      family: string
      problem: string
      format: string
      repair?: string
    }
  | {
      kind: 'verify'
      seq: number
      ts: number
      round: number
      maxRounds: number
      passed: boolean
      failures: string[]
    }

export interface SessionView {
  sessionId: string | null
  repo: string | null
  provider: string | null
  model: string | null
  /** The server the session's next turn asks (a switch to another provider without one drops it). */
  baseUrl: string | null
  approvalPolicy: string | null
  status: 'idle' | 'thinking' | 'running-tool' | 'waiting' | 'finished'
  finishReason: FinishReason | null
  finishMessage: string | null
  steps: TimelineStep[]
  usage: Usage
  modelSteps: number
  startedAt: number | null
  finishedAt: number | null
  lastSeq: number
  /** Call ids awaiting a decision, in request order. */
  pendingApprovals: string[]
  /** Set on a fork: where it came from. */
  parent: { sessionId: string; seq: number; step?: number } | null
  /** Files that instruct agents changed in this session without the user approving it (full-auto, commands). */
  agentFilesChanged: string[]
  /** Rule files changed since an earlier session recorded them (named when this one started). */
  ruleFilesChanged: { path: string; sessionId: string }[]
  /** The newest record of what commands changed under ignored folders since the session started. */
  ignoredRecord: IgnoredFileChange[]
}

export type IgnoredFileChange = NonNullable<
  Extract<StepwiseEvent, { type: 'checkpoint.created' }>['ignored']
>[number]

export const emptySessionView: SessionView = {
  sessionId: null,
  repo: null,
  provider: null,
  model: null,
  baseUrl: null,
  approvalPolicy: null,
  status: 'idle',
  finishReason: null,
  finishMessage: null,
  steps: [],
  usage: { inputTokens: 0, outputTokens: 0 },
  modelSteps: 0,
  startedAt: null,
  finishedAt: null,
  lastSeq: -1,
  pendingApprovals: [],
  parent: null,
  agentFilesChanged: [],
  ruleFilesChanged: [],
  ignoredRecord: [],
}

/** What an approval prompt for an MCP call showed (its subject). */
export type McpCall = Omit<SubjectOf<'mcp'>, 'kind'>

export interface ToolStep {
  kind: 'tool'
  seq: number
  ts: number
  callId: string
  name: string
  args: unknown
  mutating: boolean
  status: StepStatus
  result?: Record<string, unknown>
  durationMs?: number
  output: string
  approval?: {
    decision: string
    by: string
    reason?: string
    diff?: string
    requestedSeq: number
    /** When the user was asked (ms since epoch), and how long the answer took once given. */
    requestedTs?: number
    waitMs?: number
    /** The "always allow" rule the user saved here, or the one that let the call run unasked. */
    rule?: ApprovalRule
    /** The change is to a file that instructs agents or other tools. */
    agentFile?: boolean
  }
  /**
   * Announced with the other changes of its model step (`change.proposed`) and not started yet:
   * `approval.diff` is its preview. Gone once the call starts.
   */
  proposed?: true
  /** An MCP call the user was asked about: server, tool, arguments, the server's description. */
  mcp?: McpCall
  /** Images an MCP tool returned (the model got a description of them). */
  attachments?: ToolAttachment[]
  /**
   * The checkpoint taken after the call, when the app's timeline folds it into the call's row
   * (renderer timeline/fold.ts); the reducer itself keeps checkpoints as steps of their own.
   */
  checkpoint?: CheckpointStep
}

export type CheckpointStep = Extract<TimelineStep, { kind: 'checkpoint' }>
