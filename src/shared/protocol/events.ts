import { z } from 'zod'
import { approvalRuleSchema, approvalSubjectSchema, proposedChangeSchema } from './approval'
import { toolAttachmentSchema } from './mcp'
import { isProviderId, isProviderIdShape, unknownProviderMessage } from '../providers'

/**
 * Events: everything the core tells a host, one discriminated union on `type`.
 * Every event is appended to the store *before* it is emitted, and the renderer's
 * state is `reduce(events)` (see ../reducer.ts), live and in replay alike.
 */

export const APPROVAL_POLICIES = ['ask', 'auto-edit', 'full-auto', 'read-only'] as const
export const approvalPolicySchema = z.enum(APPROVAL_POLICIES)
export type ApprovalPolicy = z.infer<typeof approvalPolicySchema>

/**
 * A provider's id as events carry it: any id of the registry's shape, so a stored history whose
 * provider is no longer registered still replays. Commands that choose a provider take
 * `knownProviderIdSchema`: an id the registry holds (src/shared/providers), else a clear refusal.
 */
export const providerIdSchema = z.string().refine(isProviderIdShape, {
  message: 'a provider id is lower-case letters, digits and "-", starting with a letter',
})
export type ProviderId = z.infer<typeof providerIdSchema>
export const knownProviderIdSchema = z.string().superRefine((id, ctx) => {
  if (!isProviderId(id)) ctx.addIssue({ code: 'custom', message: unknownProviderMessage(id) })
})

export const FINISH_REASONS = ['done', 'step-limit', 'error', 'interrupted'] as const
export const finishReasonSchema = z.enum(FINISH_REASONS)
export type FinishReason = z.infer<typeof finishReasonSchema>

export const usageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
})
export type Usage = z.infer<typeof usageSchema>

export const toolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The raw argument text exactly as the model produced it (may be malformed JSON). */
  arguments: z.string(),
})
export type ToolCall = z.infer<typeof toolCallSchema>

const base = {
  sessionId: z.string(),
  seq: z.number().int().nonnegative(),
  /** Milliseconds since the epoch. */
  ts: z.number(),
}

export const sessionStartedEvent = z.object({
  ...base,
  type: z.literal('session.started'),
  protocolVersion: z.number().int(),
  repo: z.string(),
  provider: providerIdSchema,
  model: z.string(),
  baseUrl: z.string().optional(),
  approvalPolicy: approvalPolicySchema,
  maxSteps: z.number().int().positive(),
  baselineSnapshotId: z.number().int().optional(),
  /**
   * Files that instruct agents (AGENTS.md, .cursorrules, …) that changed since the last session of
   * this project recorded them, with that session: the user should look before trusting them.
   */
  ruleFilesChanged: z.array(z.object({ path: z.string(), sessionId: z.string() })).optional(),
  /** Set on a fork: the session and step it was forked from. */
  /** A fork's origin: the parent's event seq, and the step number it is (shared/steps.ts; absent in older logs). */
  parent: z
    .object({
      sessionId: z.string(),
      seq: z.number().int().nonnegative(),
      step: z.number().int().nonnegative().optional(),
    })
    .optional(),
})

export const userMessageEvent = z.object({
  ...base,
  type: z.literal('user.message'),
  text: z.string(),
  /** Sent while the agent worked: held in the queue, delivered at the next step boundary. */
  queued: z.boolean().optional(),
  /**
   * MCP resources the message names (`@SERVER:URI`, docs/mcp.md#resources): each read right
   * after it as the server's read_resource call `callId` (tool.started … tool.finished, through
   * the policy), and its contents attached to this message for the model.
   */
  resources: z.array(z.object({ server: z.string(), uri: z.string(), callId: z.string() })).optional(),
})

export const assistantDeltaEvent = z.object({
  ...base,
  type: z.literal('assistant.delta'),
  step: z.number().int().positive(),
  text: z.string(),
})

export const assistantMessageEvent = z.object({
  ...base,
  type: z.literal('assistant.message'),
  step: z.number().int().positive(),
  text: z.string(),
  toolCalls: z.array(toolCallSchema),
  usage: usageSchema,
  durationMs: z.number().nonnegative(),
  provider: providerIdSchema,
  model: z.string(),
  /** True when the calls were recovered from text (a model without native tool calls). */
  textToolCalls: z.boolean().optional(),
  /**
   * The context meter: tokens this request used of the window. `promptSource` says whose count it is:
   * the server's (`reported`), or ours when the server said nothing or less than we estimated
   * (a prompt cache makes Ollama count only the new tokens).
   */
  context: z
    .object({
      usedTokens: z.number().int().nonnegative(),
      windowTokens: z.number().int().positive(),
      promptSource: z.enum(['reported', 'estimated']).optional(),
    })
    .optional(),
})

export const modelRetryEvent = z.object({
  ...base,
  type: z.literal('model.retry'),
  step: z.number().int().positive(),
  attempt: z.number().int().positive(),
  delayMs: z.number().nonnegative(),
  reason: z.string(),
})

/**
 * The model wrote tool-call markup that could not be read (broken JSON, an unknown
 * tool inside `<tool_call>`, an unclosed wrapper). Nothing ran. With `repair`, the
 * loop sent that message asking for the call again in `format`; without it, this
 * was the second failure in a row and the turn ended with the text as written.
 */
export const toolcallUnparsedEvent = z.object({
  ...base,
  type: z.literal('toolcall.unparsed'),
  step: z.number().int().positive(),
  /** The format family whose markup it was (`hermes`, `mistral`, …). */
  family: z.string(),
  problem: z.string(),
  /** One call written the way the model should write it. */
  format: z.string(),
  repair: z.string().optional(),
})

export const toolStartedEvent = z.object({
  ...base,
  type: z.literal('tool.started'),
  callId: z.string(),
  name: z.string(),
  /** Parsed arguments when they parsed, else the raw text. */
  args: z.unknown(),
  mutating: z.boolean(),
})

export const toolOutputEvent = z.object({
  ...base,
  type: z.literal('tool.output'),
  callId: z.string(),
  stream: z.enum(['stdout', 'stderr']),
  text: z.string(),
})

export const approvalRequestedEvent = z.object({
  ...base,
  type: z.literal('approval.requested'),
  callId: z.string(),
  tool: z.string(),
  /** What the user is asked to approve (./approval.ts). */
  subject: approvalSubjectSchema,
  /**
   * The rule "always allow" would save (commands and MCP tools; never for a denied command).
   * Absent: the card offers no "always allow".
   */
  rule: approvalRuleSchema.shape.pattern.optional(),
})

/**
 * One of the file changes of a model step that will wait for the user: all of them are recorded,
 * one event each in call order, before the first is asked. Each is still asked, answered and
 * recorded on its own (`approval.requested`).
 */
export const changeProposedEvent = z.object({
  ...base,
  type: z.literal('change.proposed'),
  /** The model step that made the calls. */
  step: z.number().int(),
  /** 0-based position among the step's proposed changes, and how many there are (two or more). */
  index: z.number().int().nonnegative(),
  count: z.number().int().min(2),
  change: proposedChangeSchema,
})

export const approvalDecisionSchema = z.enum([
  'accept',
  'reject',
  'edited',
  'partial',
  'regenerate',
  'always',
])
export type ApprovalDecisionKind = z.infer<typeof approvalDecisionSchema>

export const approvalResolvedEvent = z.object({
  ...base,
  type: z.literal('approval.resolved'),
  callId: z.string(),
  decision: approvalDecisionSchema,
  /** `user` answered, or the approval `policy` decided without asking. */
  by: z.enum(['user', 'policy']),
  /** For `always`: the rule it saved (or, with `by: policy`, the rule that let the call run unasked). */
  rule: approvalRuleSchema.optional(),
  reason: z.string().optional(),
  /** For `edited`/`partial`: the diff that was actually applied, against the file before. */
  appliedDiff: z.string().optional(),
})

export const toolFinishedEvent = z.object({
  ...base,
  type: z.literal('tool.finished'),
  callId: z.string(),
  name: z.string(),
  ok: z.boolean(),
  /** The JSON object the model receives: `{ok:true, ...}` or `{ok:false, error}`. */
  result: z.record(z.string(), z.unknown()),
  durationMs: z.number().nonnegative(),
  /** Images an MCP tool returned, for the app (the model got a description). */
  attachments: z.array(toolAttachmentSchema).optional(),
  /**
   * What the call did to the session's read record: a file read (or written) with its
   * fingerprint, or forgotten (null: deleted). A resumed chat rebuilds its reads from these,
   * so a file read in one message can be edited in the next. Absent in older sessions.
   */
  reads: z
    .array(
      z.object({
        path: z.string(),
        fingerprint: z.object({ size: z.number(), mtimeMs: z.number(), sha256: z.string() }).nullable(),
      }),
    )
    .optional(),
})

export const checkpointCreatedEvent = z.object({
  ...base,
  type: z.literal('checkpoint.created'),
  snapshotId: z.number().int(),
  callId: z.string().optional(),
  paths: z.array(z.string()),
  /**
   * After a command: files under ignored folders (node_modules/, build output), which snapshots
   * leave out, that differ from the session's start — by path, with size and sha256 now, and
   * `stored` when the bytes are in the blob store under that sha256 (small files, within a budget).
   */
  ignored: z
    .array(
      z.object({
        path: z.string(),
        status: z.enum(['added', 'modified', 'deleted']),
        size: z.number().optional(),
        sha256: z.string().optional(),
        stored: z.literal(true).optional(),
      }),
    )
    .optional(),
  /**
   * Files that instruct agents or other tools (main/containment/agent-files.ts) among `paths` that the
   * user did not approve as a file change (full-auto, or a command's doing): marked on the timeline
   * and in the end summary.
   */
  agentFiles: z.array(z.string()).optional(),
})

/** The project's files were put back as they were at a checkpoint (undo, rewind, fork). */
export const checkpointRestoredEvent = z.object({
  ...base,
  type: z.literal('checkpoint.restored'),
  kind: z.enum(['undo', 'rewind', 'fork']),
  /** The snapshot restored. */
  snapshotId: z.number().int(),
  /** The step (event seq) whose state was restored, when there is one. */
  toSeq: z.number().int().nonnegative().optional(),
  /** The present, checkpointed just before the restore: restoring it undoes this restore. */
  savedSnapshotId: z.number().int(),
  /** Files written or deleted. */
  paths: z.array(z.string()),
})

/** A new session was forked from this one. */
export const sessionForkedEvent = z.object({
  ...base,
  type: z.literal('session.forked'),
  childSessionId: z.string(),
  atSeq: z.number().int().nonnegative(),
  /** The step number of `atSeq` (shared/steps.ts); absent in older logs. */
  atStep: z.number().int().nonnegative().optional(),
})

/** The user switched the session's model or approval policy (from the next turn; the policy at once). */
export const sessionConfiguredEvent = z.object({
  ...base,
  type: z.literal('session.configured'),
  provider: providerIdSchema.optional(),
  model: z.string().optional(),
  baseUrl: z.string().optional(),
  approvalPolicy: approvalPolicySchema.optional(),
})

export const contextCompactedEvent = z.object({
  ...base,
  type: z.literal('context.compacted'),
  beforeTokens: z.number().int().nonnegative(),
  afterTokens: z.number().int().nonnegative(),
  summary: z.string().optional(),
  /**
   * Set by a compaction the user asked for (`/compact`, `sessions compact`), between turns: the
   * summary stands for everything but the first message and these last items of the transcript,
   * for every later turn (agent/resume.ts). Absent: a compaction inside a turn, which later turns redo.
   */
  keptItems: z.number().int().nonnegative().optional(),
  /** What the user asked the summary to keep above all (`/compact focus text`). */
  focus: z.string().optional(),
})

export const FINDING_SEVERITIES = ['high', 'medium', 'low'] as const
export const FINDING_CATEGORIES = ['bug', 'security', 'performance', 'readability', 'tests'] as const

export const findingSchema = z.object({
  file: z.string(),
  line: z.number().int().nonnegative(),
  severity: z.enum(FINDING_SEVERITIES),
  category: z.enum(FINDING_CATEGORIES),
  message: z.string(),
  suggestion: z.string().optional(),
})
export type Finding = z.infer<typeof findingSchema>

/** A code-review finding the model reported (`stepwise review`). */
export const reviewFindingEvent = z.object({
  ...base,
  type: z.literal('review.finding'),
  callId: z.string(),
  finding: findingSchema,
})

/** The repair loop ran the project's build and tests after the model said it was done. */
export const verifyFinishedEvent = z.object({
  ...base,
  type: z.literal('verify.finished'),
  round: z.number().int().nonnegative(),
  maxRounds: z.number().int().nonnegative(),
  passed: z.boolean(),
  /** One line per failing check or test, as sent back to the model. */
  failures: z.array(z.string()),
})

/**
 * Every machine-readable cause an `error` event carries. The model's failures come from
 * agent/errors.ts (one per ProviderError kind); `internal` from a turn that threw (session/turn.ts,
 * agent/errors.ts, service/queue-commands.ts); `checkpoint-failed` from agent/tool-runner.ts;
 * `fork-failed` from timetravel/fork.ts.
 */
export const ERROR_CODES = [
  'model-unreachable',
  'auth',
  'quota',
  'model-not-found',
  'rate-limit',
  'server-error',
  'context-overflow',
  'bad-response',
  'bad-request',
  'model-timeout',
  'answer-too-long',
  'internal',
  'checkpoint-failed',
  'fork-failed',
] as const
export const errorCodeSchema = z.enum(ERROR_CODES)
export type ErrorCode = z.infer<typeof errorCodeSchema>

export const errorEvent = z.object({
  ...base,
  type: z.literal('error'),
  message: z.string(),
  /** Machine-readable cause (ERROR_CODES). */
  code: errorCodeSchema,
  /** What the user can do about it. */
  hint: z.string().optional(),
})

export const sessionFinishedEvent = z.object({
  ...base,
  type: z.literal('session.finished'),
  reason: finishReasonSchema,
  steps: z.number().int().nonnegative(),
  usage: usageSchema,
  durationMs: z.number().nonnegative(),
  message: z.string().optional(),
})

/**
 * Where a session stands (the session list's `status`): `idle` between turns, `running` during one,
 * and how the last turn ended otherwise (store/store.ts sets it).
 */
export const SESSION_STATUSES = ['idle', 'running', 'done', 'step-limit', 'error', 'interrupted'] as const
export const sessionStatusSchema = z.enum(SESSION_STATUSES)
export type SessionStatus = z.infer<typeof sessionStatusSchema>

export const TURN_KINDS = ['message', 'retry', 'continue'] as const

/**
 * A turn began (session/session.ts): the user's message (`message`, the user.message follows),
 * the model asked again from where the session stands (`retry`), or a run that continues without a
 * new message (`continue`: a fork re-run). A turn.started with no turn.finished after it is a turn
 * whose process died: the next turn continues from what was stored.
 */
export const turnStartedEvent = z.object({
  ...base,
  type: z.literal('turn.started'),
  /** 1 for the session's first turn, counted over its stored turn.started events. */
  turn: z.number().int().positive(),
  kind: z.enum(TURN_KINDS),
  untilGreen: z.boolean().optional(),
})

/** A turn ended, however it ended: after its session.finished, or after an internal error. */
export const turnFinishedEvent = z.object({
  ...base,
  type: z.literal('turn.finished'),
  turn: z.number().int().positive(),
  reason: finishReasonSchema,
  durationMs: z.number().nonnegative(),
})

export const stepwiseEventSchema = z.discriminatedUnion('type', [
  sessionStartedEvent,
  userMessageEvent,
  assistantDeltaEvent,
  assistantMessageEvent,
  modelRetryEvent,
  toolcallUnparsedEvent,
  toolStartedEvent,
  toolOutputEvent,
  changeProposedEvent,
  approvalRequestedEvent,
  approvalResolvedEvent,
  toolFinishedEvent,
  checkpointCreatedEvent,
  checkpointRestoredEvent,
  sessionForkedEvent,
  sessionConfiguredEvent,
  contextCompactedEvent,
  reviewFindingEvent,
  verifyFinishedEvent,
  errorEvent,
  sessionFinishedEvent,
  turnStartedEvent,
  turnFinishedEvent,
])

export type StepwiseEvent = z.infer<typeof stepwiseEventSchema>
export type EventType = StepwiseEvent['type']
export type EventOf<T extends EventType> = Extract<StepwiseEvent, { type: T }>

/** An event before the store has given it a `seq` and `ts`. */
export type EventDraft = StepwiseEvent extends infer E
  ? E extends StepwiseEvent
    ? Omit<E, 'seq' | 'ts' | 'sessionId'>
    : never
  : never
