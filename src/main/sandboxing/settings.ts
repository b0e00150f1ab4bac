import { z } from 'zod'

/**
 * The user's command settings (docs/sandbox.md#commands). `allow` and `deny` extend the built-in
 * lists with argv prefixes such as `"docker compose"` or `"terraform plan"`; a
 * deny (built-in or the user's) always wins over an allow.
 */
export interface CommandSettings {
  /** Extra commands that run without asking: argv prefixes (`"docker compose ps"`). */
  allow: string[]
  /** Extra commands that are always refused: argv prefixes, flags anywhere (`"terraform apply"`, `"kubectl delete"`). */
  deny: string[]
  /** Commands may use the network (the sandbox cuts it otherwise, loopback included). */
  network: boolean
  /** Default timeout for a command, in seconds (a call's `timeout_s` may differ, up to MAX_TIMEOUT_S). */
  timeoutS: number
  /** Timeout for the project's test, build and lint commands, in seconds. */
  buildTimeoutS: number
  /** `auto`: run inside bubblewrap where it works; `off`: always run directly. */
  sandbox: 'auto' | 'off'
  /** Folders under $HOME that stay visible (read-only) inside the sandbox, e.g. `~/.m2`. */
  readablePaths: string[]
  /**
   * Where the sandbox cannot run, still run commands unconfined under `auto-edit`
   * and `full-auto` (otherwise they are refused; `ask` asks for each one).
   */
  allowUnsandboxed: boolean
  /** Extra environment variables commands may see: names, or prefixes ending in `*` (`MYAPP_*`). */
  env: string[]
  /** Run the repository's git hooks on a commit the user approved (git_commit); off by default. */
  gitHooks?: boolean
}

export const DEFAULT_TIMEOUT_S = 120
export const DEFAULT_BUILD_TIMEOUT_S = 600
/** No single command may run longer than this (30 minutes). */
export const MAX_TIMEOUT_S = 1800

export const DEFAULT_COMMAND_SETTINGS: Readonly<CommandSettings> = Object.freeze({
  allow: [],
  deny: [],
  network: false,
  timeoutS: DEFAULT_TIMEOUT_S,
  buildTimeoutS: DEFAULT_BUILD_TIMEOUT_S,
  sandbox: 'auto',
  readablePaths: [],
  allowUnsandboxed: false,
  env: [],
})

const stringList = z.array(z.string()).catch([])

const settingsSchema = z.object({
  allow: stringList.optional(),
  deny: stringList.optional(),
  network: z.boolean().catch(false).optional(),
  timeoutS: z.number().positive().catch(DEFAULT_TIMEOUT_S).optional(),
  buildTimeoutS: z.number().positive().catch(DEFAULT_BUILD_TIMEOUT_S).optional(),
  sandbox: z.enum(['auto', 'off']).catch('auto').optional(),
  readablePaths: stringList.optional(),
  allowUnsandboxed: z.boolean().catch(false).optional(),
  env: stringList.optional(),
  gitHooks: z.boolean().catch(false).optional(),
})

/**
 * Settings from stored JSON (or a partial object): unknown fields are ignored and
 * invalid ones fall back to their default, so a bad settings file never stops a command.
 */
export function commandSettingsFrom(raw: unknown): CommandSettings {
  const parsed = settingsSchema.safeParse(raw ?? {})
  const given = parsed.success ? parsed.data : {}
  const clean = (list: string[] | undefined) => (list ?? []).map((s) => s.trim()).filter((s) => s !== '')
  return {
    allow: clean(given.allow),
    deny: clean(given.deny),
    network: given.network ?? DEFAULT_COMMAND_SETTINGS.network,
    timeoutS: Math.min(given.timeoutS ?? DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S),
    buildTimeoutS: Math.min(given.buildTimeoutS ?? DEFAULT_BUILD_TIMEOUT_S, MAX_TIMEOUT_S),
    sandbox: given.sandbox ?? DEFAULT_COMMAND_SETTINGS.sandbox,
    readablePaths: clean(given.readablePaths),
    allowUnsandboxed: given.allowUnsandboxed ?? false,
    env: clean(given.env),
    gitHooks: given.gitHooks ?? false,
  }
}

/** The settings a tool call runs with: the session's, else the defaults. */
export function settingsOf(ctx: { commands?: CommandSettings }): CommandSettings {
  return ctx.commands ?? { ...DEFAULT_COMMAND_SETTINGS }
}
