import type { Gate } from './gate'

/**
 * The sandbox (docs/sandbox.md) as the tools see it. Every path a model names goes
 * through `resolve` before any file-system call.
 */
export interface ResolvedPath {
  /** Absolute path on disk (inside the root, symlinks followed where they exist). */
  abs: string
  /** POSIX path relative to the root, as shown in every result. */
  rel: string
}

export interface Sandbox {
  readonly root: string
  /** The gate every reader of project files asks (gate.ts): reads go through `gate.read`. */
  readonly gate: Gate
  /**
   * The effective denylist (gitignore syntax), so ripgrep-based tools such as
   * `search_in_files` skip exactly what listing skips.
   */
  readonly denyPatterns: readonly string[]
  /**
   * Resolves a model-supplied path. Returns an error message for the model when the
   * path is absolute, contains `..` that leaves the root, a NUL byte, follows a link
   * out of the root, or names a denied file (`.env`, `.git/`, keys, …).
   */
  resolve(path: string, opts?: { allowDenied?: boolean }): ResolvedPath | { error: string }
  /** True when a root-relative POSIX path is on the denylist (any letter case) or in a denied location. */
  isDenied(rel: string): boolean
  /** True when a root-relative path is ignored by .gitignore (or denied). */
  isIgnored(rel: string): boolean
  /**
   * Every file a snapshot or listing may see: not denied, not ignored, regular files
   * only, sorted, POSIX-relative. Fast on big trees (ripgrep).
   */
  listFiles(opts?: { prefix?: string; glob?: string; limit?: number; signal?: AbortSignal }): Promise<{
    files: string[]
    truncated: boolean
  }>
  /**
   * Runs ripgrep (`args` are its search flags, e.g. `--json -F -e foo`) over the files
   * `listFiles` would see, optionally under `prefix`, streaming stdout lines (bytes) to
   * `onLine` (return false to stop). Search uses this so it skips exactly what listing skips.
   */
  ripgrep(
    args: readonly string[],
    opts: {
      prefix?: string
      signal?: AbortSignal
      onLine: (line: Buffer) => boolean
      /**
       * The project-relative file a line of output comes from (undefined: a line of
       * no file). Lines of a file that is a second name (a hard link) of a secret
       * never reach `onLine`.
       */
      fileOf: (line: Buffer) => string | undefined
    },
  ): Promise<{ code: number | null; stderr: string; stopped: boolean }>
}
