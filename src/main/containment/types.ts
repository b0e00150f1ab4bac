import type fs from 'node:fs'
import type { DenyList } from './denylist'
import type { UnreadablePath } from './ripgrep'

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
  /**
   * True when a root-relative path is ignored by .gitignore (or denied). `isDir`, when the caller
   * knows whether it is a folder (a walk's entry), saves the stat that would tell.
   */
  isIgnored(rel: string, isDir?: boolean): boolean
  /**
   * Every file a snapshot or listing may see: not denied, not ignored, regular files
   * only, sorted, POSIX-relative. Fast on big trees (ripgrep).
   */
  listFiles(opts?: {
    prefix?: string
    glob?: string
    limit?: number
    signal?: AbortSignal
    /** Nice value of the listing's ripgrep (Linux, macOS): above 0 for background work. */
    nice?: number
    /**
     * Awaited before each slice in which the listing's paths are judged on this thread (when it
     * returns a promise): background work passes the foreground's wait, so a step never pays a slice.
     */
    pause?: () => Promise<void> | undefined
  }): Promise<{
    files: string[]
    truncated: boolean
    /** How many files matched before the limit cut the list. */
    total: number
    /**
     * The paths the walk could not reach (a folder it may not read, a path past PATH_MAX), with
     * the OS's reason: the one place that knows what a listing left out, for the readers to say so.
     */
    skipped?: UnreadablePath[]
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

/** The gate (gate.ts): what it answers. */
export type GateRefusal = { error: string }

/** True when the gate's answer is a refusal (it carries the reason instead of a path). */
export function isRefusal<T extends object>(answer: T | GateRefusal): answer is GateRefusal {
  return Object.hasOwn(answer, 'error')
}

export interface GatedRead extends ResolvedPath {
  data: Buffer
  stat: fs.Stats
}

export interface Gate {
  readonly root: string
  readonly deny: DenyList
  /** A warning for the user when the root holds their home, the whole disk or the data folder. */
  readonly rootWarning: string | undefined
  /**
   * A model-supplied path, resolved and judged (by name and location; the content at read time).
   * `inIgnoredFolder`: a file under node_modules/ or dist/ read for review (a command changed it):
   * those folders do not refuse it; secrets, locations and links still do.
   */
  resolve(
    input: string,
    opts?: { allowDenied?: boolean; inIgnoredFolder?: boolean },
  ): ResolvedPath | GateRefusal
  /**
   * A root-relative path met in a listing, ripgrep's output or the index, judged again now:
   * links followed, names, locations, hard links and, with `content`, the file's head.
   */
  admits(rel: string, opts?: { content?: boolean }): boolean
  /** The cheap check for listings (no stat): the name, and the location when the root holds one. */
  admitsName(rel: string, opts?: { inIgnoredFolder?: boolean }): boolean
  /**
   * Reads a resolved file: opened without following a link swapped in since it was resolved,
   * never blocking (a FIFO is refused), a regular file no larger than `maxBytes`, whose head
   * is not a secret by content.
   */
  read(file: ResolvedPath, opts: { maxBytes: number }): GatedRead | GateRefusal
  /** A refusal when bytes read from `rel` are a secret by content (their head), else undefined. */
  checkContent(rel: string, data: Uint8Array): GateRefusal | undefined
  /** Why an absolute path is denied by location (a home credential, the data folder), if it is. */
  deniedLocation(abs: string): string | undefined
}
