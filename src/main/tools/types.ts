import type { z } from 'zod'
import type { FileChangeKind } from '../../shared/protocol'
import type { FileFingerprint } from '../containment/fingerprint'
import type { BaselineReader } from '../snapshot/baseline-reader'

/**
 * The tool contract (docs/tools.md). A tool is declared schema-first: its zod input
 * schema validates the model's arguments and becomes the JSON Schema the model
 * reads (`.describe()` texts included).
 */

export type ToolFamily = 'read' | 'edit' | 'review' | 'code' | 'git' | 'exec' | 'mcp'

/**
 * A failure the model reads: what went wrong and what to do instead. `F`: what else a failure
 * carries for the model (a command's output and exit code).
 */
export type ToolFailure<F extends object = object> = { ok: false; error: string } & F

/** A result's fields past `ok`: JSON values the model reads. */
export type ResultFields = Record<string, unknown>

/**
 * What a tool returns; this object is serialised and sent to the model. A tool names its own
 * fields (`T` on success, `F` besides the error on failure); the loop, the protocol and the
 * timeline only rely on `ok` (and `error` when it is false).
 */
export type ToolResult<T extends object = ResultFields, F extends object = object> =
  ({ ok: true } & T) | ToolFailure<F>

/**
 * A step of a tool (resolve a path, load a file, open the repository): its value, or the failure the
 * tool hands back as is. Told apart by `ok`, so `if (!x.ok) return x` narrows both ways.
 */
export type Outcome<T extends object> = ({ ok: true } & T) | ToolFailure

/**
 * A change a file-change tool proposes. Nothing is written until the agent loop has
 * the user's (or the policy's) decision; then `applyFileChange` writes `after`,
 * possibly edited by the user.
 */
export interface FileChange {
  /** POSIX path relative to the project root. */
  path: string
  kind: FileChangeKind
  /** Current text on disk (null when the file does not exist). */
  before: string | null
  /** Proposed text (null for a delete). */
  after: string | null
  /** Fingerprint of the file when `before` was read, to detect a change on disk before applying. */
  fingerprint: FileFingerprint | null
  /** A change has no `ok`: that tells it apart from a tool's answer (`Proposal`). */
  ok?: undefined
}

/** What a file-change tool proposes: a change to ask about, or an answer for the model at once. */
export type Proposal = FileChange | ToolResult

/** True when the proposal is a change to ask about (not an error or an answer needing no change). */
export function isFileChange(proposal: Proposal): proposal is FileChange {
  return proposal.ok === undefined
}

/** Read state per path: the fingerprint when the model last read the file in this session. */
export interface ReadTracker {
  recordRead(path: string, fingerprint: FileFingerprint): void
  lastRead(path: string): FileFingerprint | undefined
  forget(path: string): void
}

export interface ToolLimits {
  /** Largest file `read_file` returns, in bytes (default 400 KB). */
  maxReadBytes: number
  /** Largest content a write may produce, in bytes (default 800 KB). */
  maxWriteBytes: number
}

export interface ToolContext {
  /** The project root, already realpath'd. */
  root: string
  sandbox: import('../containment/types').Sandbox
  reads: ReadTracker
  limits: ToolLimits
  baseline?: BaselineReader
  /**
   * Files changed under ignored folders (node_modules/, build output) since the session's first
   * command, by a stat-only comparison (snapshot/ignoredFolders.ts); absent where nothing records them.
   */
  ignoredChanges?: () => Promise<import('../snapshot/ignoredFolders').IgnoredChange[]>
  /**
   * Called before a command or MCP tool runs: the first call records the ignored folders (only a
   * command or a server can change them, so a session that runs none never walks them).
   */
  beforeCommand?: () => Promise<void>
  /** The user's command settings (allow/deny lists, network, timeouts, sandbox); defaults when absent. */
  commands?: import('../sandboxing/settings').CommandSettings
  /** The project's code index (code tools); absent until it is built, or when indexing is off. */
  index?: import('../codeindex/code-index').CodeIndex
  signal: AbortSignal
}

interface ToolBase<S extends z.ZodType> {
  name: string
  family: ToolFamily
  /** Other names models use for it (`create_file` for `write_file`). */
  aliases?: readonly string[]
  description: string
  input: S
  /** A JSON Schema given as is (an MCP server's), instead of the one derived from `input`. */
  parameters?: Record<string, unknown>
}

export interface ReadTool<S extends z.ZodType = z.ZodType> extends ToolBase<S> {
  mutating: false
  run(input: z.infer<S>, ctx: ToolContext): Promise<ToolResult>
  /** Absent on a read tool: `isFileChangeTool` and `isActionTool` tell the kinds apart by these. */
  propose?: undefined
  execute?: undefined
}

/**
 * A file-change tool proposes a `FileChange` (or a result for the model: an error, or an
 * answer that needs no change, such as deleting a file that is already gone); the agent
 * loop asks for approval, then applies it. Treat a tool as mutating when in doubt.
 */
export interface FileChangeTool<S extends z.ZodType = z.ZodType> extends ToolBase<S> {
  mutating: true
  propose(input: z.infer<S>, ctx: ToolContext): Promise<Proposal>
  execute?: undefined
}

/**
 * What an action (a command, a commit) will do, shown to the user before it runs.
 * `verdict` is the tool's own reading of the user's lists: `deny` is refused under
 * every policy, `allow` runs without asking, `ask` follows the approval policy.
 */
export interface ActionPlan<D = unknown> {
  /** One line for the timeline and the approval prompt. */
  summary: string
  /** The exact command line and working folder, when the action runs a command. */
  command?: { command: string; cwd: string }
  verdict: 'allow' | 'ask' | 'deny'
  /** Why it is denied or needs asking (which part of a pipeline matched which rule). */
  reason?: string
  /**
   * Set when the command would run without the OS sandbox and the user has not
   * allowed that: `auto-edit` and `full-auto` refuse it, `ask` asks with this warning.
   */
  unconfined?: string
  /** Tool-specific data `execute` needs (the parsed command, the files to commit, …). */
  data: D
}

/** Streams a running action's output to the timeline (`tool.output` events). */
export interface ActionIO {
  onOutput(stream: 'stdout' | 'stderr', text: string): void
}

/**
 * A mutating tool whose effect is not a file change the user can diff: it runs a
 * command or changes the repository. The loop asks per policy using `plan`, then
 * `execute`s it; the project is re-snapshotted afterwards, since a command may
 * change any file.
 */
export interface ActionTool<S extends z.ZodType = z.ZodType, D = unknown> extends ToolBase<S> {
  mutating: true
  plan(input: z.infer<S>, ctx: ToolContext): Promise<Outcome<ActionPlan<D>>>
  execute(plan: ActionPlan<D>, ctx: ToolContext, io: ActionIO): Promise<ToolResult>
  propose?: undefined
}

export type ToolDefinition = ReadTool | FileChangeTool | ActionTool

export function isActionTool(tool: ToolDefinition): tool is ActionTool {
  return tool.execute !== undefined
}

export function isFileChangeTool(tool: ToolDefinition): tool is FileChangeTool {
  return tool.propose !== undefined
}

/** The JSON a provider sends to the model for one tool; shared, so providers need not import the tools. */
export type { ToolSpec } from '../../shared/tool-spec'
