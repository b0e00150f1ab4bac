import { z } from 'zod'
import { approvalPolicySchema, knownProviderIdSchema } from './events'

/**
 * The app's commands beyond a session's own turn: projects, models, settings,
 * the code index and time travel. Merged into `commandSchemas` (commands.ts).
 */

/** What a fork takes from its parent: the conversation and the files, or one of them. */
export const FORK_PARTS = ['both', 'conversation', 'files'] as const
export type ForkPart = (typeof FORK_PARTS)[number]

const providerFields = {
  provider: knownProviderIdSchema,
  model: z.string().min(1),
  baseUrl: z.string().url().optional(),
}

export const commandSettingsSchema = z.object({
  allow: z.array(z.string().min(1)).max(500),
  deny: z.array(z.string().min(1)).max(500),
})

export const modelOptionsSchema = z.object({
  numCtx: z.number().int().min(512).max(2_097_152).optional(),
  maxNumCtx: z.number().int().min(512).max(2_097_152).optional(),
  temperature: z.number().min(0).max(2).optional(),
  /** Stream limits (docs/local-models.md#timeouts-and-the-answer-cap): the defaults when absent. */
  firstTokenTimeoutSec: z.number().int().min(1).max(86_400).optional(),
  idleTimeoutSec: z.number().int().min(1).max(86_400).optional(),
  maxOutputTokens: z.number().int().min(16).max(2_097_152).optional(),
})
export type ModelOptionsSetting = z.infer<typeof modelOptionsSchema>

export const appSettingsSchema = z.object({
  approvalPolicy: approvalPolicySchema,
  commands: commandSettingsSchema,
  limits: z.object({
    maxReadBytes: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024),
    maxWriteBytes: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024),
  }),
  theme: z.enum(['system', 'dark', 'light']),
  maxSteps: z.number().int().positive().max(10_000),
  /** Tool calls a turn may make before it stops and says so (the CLI's `--max-tool-calls`). */
  maxToolCalls: z.number().int().positive().max(10_000),
  /**
   * The model's window and sampling for new turns: `numCtx` fixes the window (Ollama's
   * num_ctx; a Chat server's size), else Ollama uses the model's own length up to
   * `maxNumCtx`; `temperature` is sent when set. Empty: the defaults.
   */
  modelOptions: modelOptionsSchema,
})
export type AppSettings = z.infer<typeof appSettingsSchema>

export const modelInfoSchema = z.object({
  name: z.string(),
  size: z.number().optional(),
  parameters: z.string().optional(),
  family: z.string().optional(),
  contextWindow: z.number().optional(),
  inputPerMTok: z.number().optional(),
  outputPerMTok: z.number().optional(),
})
export type ModelInfo = z.infer<typeof modelInfoSchema>
const modelInfo = modelInfoSchema

export const setupProblemSchema = z.object({ code: z.string(), message: z.string(), fix: z.string() })
export type SetupProblem = z.infer<typeof setupProblemSchema>
const problem = setupProblemSchema

const restoreOutput = z.object({
  status: z.enum(['restored', 'conflict', 'nothing', 'refused']),
  message: z.string(),
  paths: z.array(z.string()),
  conflicts: z.array(z.string()),
  /** The seq of the `checkpoint.restored` a restore recorded (a rewind to seq − 1 takes it back). */
  seq: z.number().int().optional(),
})
export type RestoreReply = z.infer<typeof restoreOutput>

export const appCommandSchemas = {
  'app/info': {
    input: z.object({}),
    output: z.object({
      version: z.string(),
      host: z.enum(['electron', 'web', 'cli']),
      dataDir: z.string(),
      sandbox: z.object({
        available: z.boolean(),
        reason: z.string().optional(),
        summary: z.string().optional(),
      }),
      defaults: z.object({ ...providerFields, approvalPolicy: approvalPolicySchema }),
      recentProjects: z.array(z.string()),
      /** The project the host was started on (`stepwise serve --repo`), to open at once. */
      startProject: z.string().nullable(),
      canPickFolder: z.boolean(),
      /** How and where a saved API key is kept, as the user is told beside the key field. */
      keyStorage: z.string(),
      /** What the user should know from the host's start (a restore a crash cut short, finished now). */
      notices: z.array(z.string()),
    }),
  },
  'project/open': {
    input: z.object({ repo: z.string().min(1) }),
    output: z.object({
      repo: z.string(),
      name: z.string(),
      branch: z.string().nullable(),
      /** Set when the folder is the user's home, `/`, or holds Stepwise's data folder. */
      warning: z.string().optional(),
    }),
  },
  'project/files': {
    input: z.object({ repo: z.string().min(1) }),
    output: z.object({ files: z.array(z.string()), truncated: z.boolean() }),
  },
  /** Folders for the path field's completion (the web host has no native picker). */
  'fs/complete': {
    input: z.object({ path: z.string() }),
    output: z.object({ entries: z.array(z.string()) }),
  },
  /** The native folder picker (desktop only). */
  'fs/pick-folder': {
    input: z.object({}),
    output: z.object({ path: z.string().nullable() }),
  },
  'models/list': {
    input: z.object({ provider: knownProviderIdSchema, baseUrl: z.string().url().optional() }),
    output: z.object({ reachable: z.boolean(), error: z.string().optional(), models: z.array(modelInfo) }),
  },
  /** Starts pulling an Ollama model; progress arrives as `host.pull-progress` notices. */
  'models/pull': {
    input: z.object({ model: z.string().min(1), baseUrl: z.string().url().optional() }),
    output: z.object({ started: z.boolean() }),
  },
  /** What stands between the user and a working model, each with how to fix it. */
  'models/check': {
    input: z.object(providerFields),
    output: z.object({ ok: z.boolean(), problems: z.array(problem) }),
  },
  'credentials/set': {
    input: z.object({ provider: knownProviderIdSchema, key: z.string().min(1).max(500) }),
    output: z.object({ ok: z.boolean() }),
  },
  'settings/get': { input: z.object({}), output: appSettingsSchema },
  'settings/set': { input: appSettingsSchema.partial(), output: appSettingsSchema },
  /** Model or approval policy for a session's next turns (and its running turn, for the policy). */
  'session/configure': {
    input: z.object({
      sessionId: z.string(),
      provider: knownProviderIdSchema.optional(),
      model: z.string().min(1).optional(),
      baseUrl: z.string().url().optional(),
      approvalPolicy: approvalPolicySchema.optional(),
    }),
    output: z.object({ ok: z.boolean() }),
  },
  /**
   * Deletes sessions softly: they leave the list at once and `session/restore` brings them back
   * until `restorableUntil` (ms since the epoch); after that the core purges them with their
   * events and the snapshots and blobs no other session uses. Forks of a deleted session stay.
   * Refused for a session whose turn is running (stop it first).
   */
  'session/delete': {
    input: z.object({ sessionIds: z.array(z.string().min(1)).min(1).max(500) }),
    output: z.object({ deleted: z.array(z.string()), restorableUntil: z.number() }),
  },
  /** Undoes a `session/delete` while its grace period lasts; ids already purged are left out. */
  'session/restore': {
    input: z.object({ sessionIds: z.array(z.string().min(1)).min(1).max(500) }),
    output: z.object({ restored: z.array(z.string()) }),
  },
  'session/rename': {
    input: z.object({ sessionId: z.string(), title: z.string().trim().min(1).max(200) }),
    output: z.object({ ok: z.boolean() }),
  },
  /**
   * Compacts the session's context now, between turns (`/compact [focus]`): the summary the loop
   * writes when the window fills, recorded as `context.compacted` so later turns start from it.
   * Refused while a turn runs; `compacted` false when there was too little to summarise.
   */
  'session/compact': {
    input: z.object({ sessionId: z.string(), focus: z.string().trim().max(2000).optional() }),
    output: z.object({
      compacted: z.boolean(),
      beforeTokens: z.number().int().nonnegative(),
      afterTokens: z.number().int().nonnegative(),
      message: z.string(),
    }),
  },
  'session/undo': {
    input: z.object({ sessionId: z.string(), confirm: z.boolean().optional() }),
    output: restoreOutput,
  },
  'session/rewind': {
    input: z.object({
      sessionId: z.string(),
      toSeq: z.number().int().nonnegative(),
      confirm: z.boolean().optional(),
    }),
    output: restoreOutput,
  },
  /**
   * Fork at a step (`atSeq`: the seq of the step's last event, shared/steps.ts): the conversation,
   * the files or both; the files put back in the project folder or in a new git worktree (in
   * `worktreeDir`, else a folder beside the repository). The fork waits for the next message,
   * on the model named here or the parent's.
   */
  'session/fork': {
    input: z.object({
      sessionId: z.string(),
      atSeq: z.number().int().nonnegative(),
      what: z.enum(FORK_PARTS).optional(),
      where: z.enum(['in-place', 'worktree']).optional(),
      worktreeDir: z.string().min(1).optional(),
      provider: knownProviderIdSchema.optional(),
      model: z.string().min(1).optional(),
      baseUrl: z.string().url().optional(),
    }),
    output: z.object({ sessionId: z.string(), repo: z.string(), title: z.string() }),
  },
  /** The files of the project right after step `seq`, and the diff of that step's checkpoint. */
  'session/files-at': {
    input: z.object({ sessionId: z.string(), seq: z.number().int().nonnegative() }),
    output: z.object({ snapshotId: z.number().nullable(), files: z.array(z.string()), diff: z.string() }),
  },
  'session/file-at': {
    input: z.object({ sessionId: z.string(), seq: z.number().int().nonnegative(), path: z.string() }),
    /** The file right after step `seq`, and right before it (what the step changed). Null: absent. */
    output: z.object({ content: z.string().nullable(), before: z.string().nullable(), binary: z.boolean() }),
  },
  /**
   * Reviews the uncommitted changes (or a file, a folder, `git:REF`, `git:A..B`) in a read-only
   * session of its own; answers once that session exists (null: nothing to review).
   */
  'review/start': {
    input: z.object({
      repo: z.string().min(1),
      target: z.string().min(1).optional(),
      focus: z.string().max(500).optional(),
      /** The model to review with; the host's default when absent. */
      provider: knownProviderIdSchema.optional(),
      model: z.string().min(1).optional(),
      baseUrl: z.string().url().optional(),
    }),
    output: z.object({ sessionId: z.string().nullable(), message: z.string() }),
  },
  'index/status': {
    input: z.object({ repo: z.string().min(1) }),
    output: z.object({ status: z.unknown() }),
  },
  'index/rebuild': {
    input: z.object({ repo: z.string().min(1) }),
    output: z.object({ files: z.number(), durationMs: z.number(), errors: z.number() }),
  },
} as const
