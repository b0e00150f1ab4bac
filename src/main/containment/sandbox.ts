import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { createGate, type GateOptions } from './gate'
import { ancestorGitignoreRules, createGitignoreMatcher } from './gitignore'
import { createGlobFilter } from './globs'
import { boundedIgnore } from './bounded-ignore'
import { collectRipgrepLines, ripgrepFilterArgs, runRipgrep, unreadablePaths } from './ripgrep'
import type { Sandbox } from './types'

export type SandboxOptions = GateOptions

/**
 * Ignored in every project, as by a .gitignore (listing, search, snapshots and the code index
 * skip them; read_file still reads them by exact path), as the original index did: build
 * output and minified bundles, which are large, generated, and no place for an edit.
 */
export const DEFAULT_IGNORED: readonly string[] = ['build/', '*.min.js']

/**
 * ripgrep's filters for a sandbox's listing and search: the deny list's globs and the default
 * ignores, with ripgrep's messages (a listing says which paths it could not reach,
 * containment/types.ts#listFiles). The benchmarks run their `rg` reference with these too.
 */
export function sandboxRipgrepArgs(denyPatterns: readonly string[]): string[] {
  return ripgrepFilterArgs([...denyPatterns, ...DEFAULT_IGNORED], { messages: true })
}

/** The project's sandbox (docs/sandbox.md). `root` is realpath'd here. */
export async function createSandbox(root: string, opts: SandboxOptions = {}): Promise<Sandbox> {
  const realRoot = await fs.realpath(root)
  if (!(await fs.stat(realRoot)).isDirectory()) throw new Error(`Sandbox root is not a directory: ${root}`)
  const gate = createGate(realRoot, opts)
  const deny = gate.deny
  const projectIgnored = createGitignoreMatcher(realRoot)
  const defaults = boundedIgnore([...DEFAULT_IGNORED])
  const gitignored = (rel: string, isDir?: boolean) =>
    defaults.ignores(rel) || defaults.ignores(`${rel}/`) || projectIgnored(rel, isDir)
  const listArgs = sandboxRipgrepArgs(deny.patterns)
  const searchArgs = sandboxRipgrepArgs(deny.patterns)

  /**
   * Runs `fn` with ripgrep arguments that scope a run to `prefix` (a root-relative
   * directory or file) under the sandbox's rules, including the `.gitignore` files
   * above the prefix, which ripgrep would not read on its own.
   */
  const withScope = async <T>(
    filterArgs: readonly string[],
    prefix: string | undefined,
    fn: (args: string[]) => Promise<T>,
  ): Promise<T> => {
    if (!prefix) return fn([...filterArgs])
    const rules = ancestorGitignoreRules(realRoot, prefix)
    if (rules === null) return fn([...filterArgs, '--', prefix])
    const ignoreFile = path.join(os.tmpdir(), `stepwise-rg-${randomBytes(6).toString('hex')}.gitignore`)
    await fs.writeFile(ignoreFile, rules)
    try {
      return await fn(['--ignore-file', ignoreFile, ...filterArgs, '--', prefix])
    } finally {
      await fs.unlink(ignoreFile).catch(() => {})
    }
  }

  const listFiles: Sandbox['listFiles'] = async (listOpts = {}) => {
    const limit = listOpts.limit ?? Number.POSITIVE_INFINITY
    const matches = listOpts.glob ? createGlobFilter(listOpts.glob) : undefined
    const prefix = normalizePrefix(listOpts.prefix)
    // An ignored directory named explicitly is still skipped, as isIgnored says.
    if (prefix && (!gate.admitsName(prefix) || gitignored(prefix)))
      return { files: [], truncated: false, total: 0 }
    // List everything, sort, then cut, so that "first N items" means the first N paths
    // in sorted order. ripgrep sorts too (`--sort path`: one walking thread, in its own
    // process), by path component, which is nearly code-unit order: sorting that here
    // takes ~8 ms for 85,000 paths where ripgrep's parallel order took ~115 ms of this
    // thread, a stall every session on a big tree felt as a slow step.
    return withScope(listArgs, prefix, async (scope) => {
      const { lines, stderr } = await collectRipgrepLines(['--files', '--sort', 'path', ...scope], {
        cwd: realRoot,
        signal: listOpts.signal,
        nice: listOpts.nice,
      })
      const unreached = unreadablePaths(stderr)
      const skipped = unreached.length > 0 ? { skipped: unreached } : {}
      // ripgrep's globs skip the denied names already; the gate also skips denied locations
      // (the project is $HOME, or holds the data folder).
      const keep = (f: string) => gate.admitsName(f) && (!matches || matches(f))
      const files = await filterInSlices(lines, keep, listOpts.pause)
      files.sort() // the default order is code-unit order, as comparePaths
      const total = files.length
      if (total <= limit) return { files, truncated: false, total, ...skipped }
      files.length = limit
      return { files, truncated: true, total, ...skipped }
    })
  }

  const ripgrep: Sandbox['ripgrep'] = (args, rgOpts) => {
    const prefix = normalizePrefix(rgOpts.prefix)
    if (prefix && (!gate.admitsName(prefix) || gitignored(prefix)))
      return Promise.resolve({ code: 1, stderr: '', stopped: false })
    // Each file with output is judged by the gate once per run, now: its real path, names in
    // any letter case, location, hard links and content (a GCP key named deploy.json).
    const admitted = new Map<string, boolean>()
    const onLine = (line: Buffer) => {
      const file = rgOpts.fileOf(line)
      if (file === undefined) return rgOpts.onLine(line)
      let ok = admitted.get(file)
      if (ok === undefined) admitted.set(file, (ok = gate.admits(file, { content: true })))
      return ok ? rgOpts.onLine(line) : true
    }
    return withScope(searchArgs, prefix, async (scope) => {
      return runRipgrep([...args, ...scope], { cwd: realRoot, signal: rgOpts.signal, onLine })
    })
  }

  return {
    root: realRoot,
    denyPatterns: deny.patterns,
    gate,
    resolve: gate.resolve,
    isDenied: (rel) => !gate.admitsName(rel),
    isIgnored: (rel, isDir) => !gate.admitsName(rel) || gitignored(rel, isDir),
    listFiles,
    ripgrep,
  }
}

function normalizePrefix(prefix: string | undefined): string | undefined {
  const p = prefix?.replace(/\/+$/, '')
  return p && p !== '.' ? p : undefined
}

/** Plain code-unit order: stable across machines and locales, and fast. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Paths judged per slice of the thread before it lets the agent loop's own work in. */
const FILTER_SLICE = 4096

/**
 * `items.filter(keep)` in slices with a turn of the event loop between them: a listing of a big
 * tree is 70,000+ paths, and judging them in one go held the session's thread for ~50–100 ms
 * (~1 s before the deny list's literal filter), a stall a step running beside it paid in full.
 * `pause`, when given, is awaited before each slice as well (the first included: the listing may
 * come back while a step runs).
 */
async function filterInSlices<T>(
  items: readonly T[],
  keep: (item: T) => boolean,
  pause?: () => Promise<void> | undefined,
): Promise<T[]> {
  const kept: T[] = []
  for (let i = 0; i < items.length; i += FILTER_SLICE) {
    if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve))
    await pause?.()
    const end = Math.min(items.length, i + FILTER_SLICE)
    for (let j = i; j < end; j++) if (keep(items[j])) kept.push(items[j])
  }
  return kept
}
