import { z } from 'zod'

/*
 * The approval model (docs/architecture.md#approvals), one shape for every host:
 * - a subject: what a tool call would do (a file change, a command, an edit conflict, an MCP call),
 *   recorded on `approval.requested`, handed to the approver, shown by the app and the CLI;
 * - an answer: what the user decided (`approval/resolve`, the terminal prompt);
 * - a rule: an "always allow" the user saved for a session or a project, matched by
 *   `ruleCovers` (../approval-rules.ts) inside the one decision function (main/agent/decide.ts).
 */

export const fileChangeKindSchema = z.enum(['create', 'modify', 'delete'])
export type FileChangeKind = z.infer<typeof fileChangeKindSchema>

/** One simple command of a command line, as bash would run it (static words only). */
export const commandPartSchema = z.object({
  words: z.array(z.string()),
  /** The command policy lets this part run on its own (it is on the allowlist). */
  allowed: z.boolean(),
})
export type CommandPart = z.infer<typeof commandPartSchema>

export const fileSubjectSchema = z.object({
  kind: z.literal('file'),
  path: z.string(),
  change: fileChangeKindSchema,
  diff: z.string(),
  before: z.string().nullable(),
  after: z.string().nullable(),
  /** The file instructs agents or other tools (main/containment/agent-files.ts): it always asks, but in full-auto. */
  agentFile: z.boolean().optional(),
  /**
   * Too large to show in full (../approval-diff.ts): `diff` is its first lines and a `[TRUNCATED: …]`
   * line, `before` and `after` are null. Accept or reject it whole: no per-hunk choice, no editing.
   */
  summarised: z.literal(true).optional(),
})

export const commandSubjectSchema = z.object({
  kind: z.literal('command'),
  command: z.string(),
  cwd: z.string(),
  /** The command policy's verdict on the whole line (main/policy/policy.ts). */
  verdict: z.enum(['allow', 'ask', 'deny']),
  /** Why it is denied or needs asking. */
  reason: z.string().optional(),
  /** Set when it would run without the OS sandbox: only `ask` may run it, one by one. */
  unconfined: z.string().optional(),
  /**
   * The line's simple commands, when every word is known before it runs (no variable,
   * substitution, redirect to a file or heredoc): only such a line can be covered by a rule.
   */
  parts: z.array(commandPartSchema).optional(),
})

/** An approved change whose file changed on disk while it waited. */
export const conflictSubjectSchema = z.object({
  kind: z.literal('conflict'),
  path: z.string(),
  message: z.string(),
})

export const mcpSubjectSchema = z.object({
  kind: z.literal('mcp'),
  server: z.string(),
  /** The server's own name for the tool. */
  tool: z.string(),
  args: z.unknown(),
  /** The server's description of the tool (untrusted, capped). */
  description: z.string().optional(),
  /** The server marks the tool read-only (a hint: it only decides what `read-only` offers). */
  readOnly: z.boolean().optional(),
  /**
   * The server's other annotations, as it set them (hints, never permissions): `destructive` (a
   * server-wide "allow" does not cover such a tool), `idempotent`, `openWorld` (reaches outside).
   */
  hints: z
    .object({
      destructive: z.boolean().optional(),
      idempotent: z.boolean().optional(),
      openWorld: z.boolean().optional(),
    })
    .optional(),
})

export const approvalSubjectSchema = z.discriminatedUnion('kind', [
  fileSubjectSchema,
  commandSubjectSchema,
  conflictSubjectSchema,
  mcpSubjectSchema,
])
export type ApprovalSubject = z.infer<typeof approvalSubjectSchema>
export type SubjectOf<K extends ApprovalSubject['kind']> = Extract<ApprovalSubject, { kind: K }>

/**
 * One file change of a model step that will wait for the user, announced with the others of that
 * step before the first is asked (one `change.proposed` each), so the app reviews them together.
 */
export const proposedChangeSchema = z.object({
  callId: z.string(),
  /** The name the model used (`edit_file`, `write_file`, …). */
  tool: z.string(),
  path: z.string(),
  change: fileChangeKindSchema,
  /**
   * The change against the file as it is now, bounded (a `[TRUNCATED: …]` line past the bound).
   * Absent when an earlier change of the same step touches the same file: its diff depends on how
   * that one is answered, and is shown when it is asked.
   */
  diff: z.string().optional(),
  /** Another change of this step comes first on the same file. */
  follows: z.literal(true).optional(),
})
export type ProposedChange = z.infer<typeof proposedChangeSchema>

export const ruleScopeSchema = z.enum(['session', 'project'])
export type RuleScope = z.infer<typeof ruleScopeSchema>

/** What a rule allows: a command by its leading words, or one MCP tool. */
export const rulePatternSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('command'),
    /** The leading words a simple command must start with (`["npm", "test"]`). */
    words: z.array(z.string().min(1)).min(1),
    /** Only exactly these words, no further argument. */
    exact: z.boolean(),
  }),
  z.object({ kind: z.literal('mcp'), server: z.string().min(1), tool: z.string().min(1) }),
])
export type RulePattern = z.infer<typeof rulePatternSchema>

export const approvalRuleSchema = z.object({
  id: z.number().int(),
  scope: ruleScopeSchema,
  /** The session a session rule belongs to. */
  sessionId: z.string().optional(),
  /** The project root a project rule belongs to. */
  project: z.string(),
  pattern: rulePatternSchema,
  createdAt: z.number(),
})
export type ApprovalRule = z.infer<typeof approvalRuleSchema>

/** The user's answer to an approval, from any host. */
export const approvalAnswerSchema = z.discriminatedUnion('decision', [
  z.object({ decision: z.literal('accept') }),
  z.object({ decision: z.literal('reject'), reason: z.string().max(4000).optional() }),
  /** Accept, but write `editedContent` instead of the proposal. */
  z.object({ decision: z.literal('edited'), editedContent: z.string() }),
  /** Some hunks only: `editedContent` is the file with the accepted ones. */
  z.object({
    decision: z.literal('partial'),
    editedContent: z.string(),
    reason: z.string().max(4000).optional(),
  }),
  /** For an edit conflict: the model reads the file again and redoes its change. */
  z.object({ decision: z.literal('regenerate') }),
  /**
   * Accept, and stop asking: for a command or an MCP tool, the rule the approval offered is saved for
   * the session or the project; for a file change, every further file change of the session (not an
   * agent file) applies at once.
   */
  z.object({ decision: z.literal('always'), scope: ruleScopeSchema }),
])
export type ApprovalAnswer = z.infer<typeof approvalAnswerSchema>

const ruleId = z.number().int().nonnegative()

export const approvalCommandSchemas = {
  /** The rules that apply to a project (its own and, with `sessionId`, that session's). */
  'rules/list': {
    input: z.object({ repo: z.string(), sessionId: z.string().optional() }),
    output: z.object({
      rules: z.array(approvalRuleSchema.extend({ description: z.string() })),
    }),
  },
  'rules/remove': {
    input: z.object({ id: ruleId }),
    output: z.object({ removed: z.boolean() }),
  },
} as const

/** An `approval.requested` payload as written before the one subject shape (old sessions, old bundles). */
const legacyApprovalPayload = z.looseObject({
  change: z
    // Only `kind` is renamed (to `change`); the rest is carried over as written.
    .looseObject({ kind: z.string() })
    .optional(),
  command: z.looseObject({ command: z.string(), cwd: z.string() }).optional(),
  conflict: z.looseObject({ path: z.string(), message: z.string() }).optional(),
  mcp: z.record(z.string(), z.unknown()).optional(),
})

/**
 * An `approval.requested` payload written before the one subject shape (its optional `change`,
 * `command`, `conflict` or `mcp`) rewritten into it; any other payload is returned as is. Used by the
 * store's migration and by bundle import, so old sessions read like new ones everywhere.
 */
export function upgradeApprovalPayload(payload: Record<string, unknown>): Record<string, unknown> {
  if (payload.subject !== undefined) return payload
  const legacy = legacyApprovalPayload.safeParse(payload)
  // A payload that is neither shape stays as it is: the event's own schema says what is wrong with it.
  if (!legacy.success) return payload
  const { change, command, conflict, mcp, ...rest } = legacy.data
  let subject: Record<string, unknown>
  if (conflict) subject = { kind: 'conflict', path: conflict.path, message: conflict.message }
  else if (mcp) subject = { kind: 'mcp', ...mcp }
  else if (change) {
    const { kind, ...file } = change
    subject = { kind: 'file', ...file, change: kind }
  } else
    subject = {
      kind: 'command',
      command: command?.command ?? String(rest.tool ?? ''),
      cwd: command?.cwd ?? '',
      verdict: 'ask',
    }
  return { ...rest, subject }
}
