import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { createDenyList } from './denylist'
import { ancestorGitignoreRules, createGitignoreMatcher } from './gitignore'
import { createGlobFilter } from './globs'
import { resolveInside } from './paths'
import { hasOtherNames, secretInodes, sharesSecretInode, userHome } from './secret-links'
import { findProjectSecrets } from '../exec/secrets-mask'
import { collectRipgrepLines, ripgrepFilterArgs, runRipgrep } from './ripgrep'
import type { ResolvedPath, Sandbox } from './types'

export interface SandboxOptions {
  /** More gitignore-syntax patterns to deny, on top of the defaults. */
  extraDeny?: string[]
  /** Default patterns this project allows (exact pattern text, e.g. `dist/`). */
  allowDeny?: string[]
}

/** The project's sandbox (docs/sandbox.md). `root` is realpath'd here. */
export async function createSandbox(root: string, opts: SandboxOptions = {}): Promise<Sandbox> {
  const realRoot = await fs.realpath(root)
  if (!(await fs.stat(realRoot)).isDirectory()) throw new Error(`Sandbox root is not a directory: ${root}`)
  const deny = createDenyList(opts)
  const gitignored = createGitignoreMatcher(realRoot)
  const filterArgs = ripgrepFilterArgs(deny.patterns)

  const resolve = (
    input: string,
    resolveOpts: { allowDenied?: boolean } = {},
  ): ResolvedPath | { error: string } => {
    const resolved = resolveInside(realRoot, input)
    if ('error' in resolved || resolveOpts.allowDenied) return resolved
    // Check what the model asked for and what it resolves to: a link named `notes`
    // pointing at `.env` is still `.env`.
    const requested = input.replace(/^\.\/+/, '')
    const why =
      deny.reason(resolved.rel) ??
      (requested !== resolved.rel && !requested.startsWith('/') ? deny.reason(requested) : undefined)
    if (why !== undefined) return { error: deniedMessage(input, why) }
    // A second name of a credential (`notes.txt` hard-linked to ~/.aws/credentials) is the credential.
    if (hasOtherNames(resolved.abs) && sharesSecretInode(resolved.abs, inodesNow()))
      return {
        error:
          `"${input}" is another name (a hard link) of a secrets file, so the sandbox denies it as it denies the file. ` +
          'Do not try to read or change it another way; if the task really needs it, ask the user.',
      }
    return resolved
  }

  /** The secrets' inodes, read when a file with several names is met (rare: no cost otherwise). */
  const inodesNow = () => secretInodes(userHome(), findProjectSecrets(realRoot).secrets)

  /**
   * Whether a project file is a second name of a secret, memoised per search: one stat
   * per file with matches, and the secrets' inodes only when one has several names
   * (walking a 72,000-file project for its hard links before every first search cost
   * ~0.6 s of this thread).
   */
  const secretLinkCheck = () => {
    const seen = new Map<string, boolean>()
    let inodes: Set<string> | undefined
    return (rel: string): boolean => {
      let linked = seen.get(rel)
      if (linked === undefined) {
        const abs = path.join(realRoot, rel)
        linked = hasOtherNames(abs) && sharesSecretInode(abs, (inodes ??= inodesNow()))
        seen.set(rel, linked)
      }
      return linked
    }
  }

  /**
   * Runs `fn` with ripgrep arguments that scope a run to `prefix` (a root-relative
   * directory or file) under the sandbox's rules, including the `.gitignore` files
   * above the prefix, which ripgrep would not read on its own.
   */
  const withScope = async <T>(prefix: string | undefined, fn: (args: string[]) => Promise<T>): Promise<T> => {
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
    if (prefix && (deny.isDenied(prefix) || gitignored(prefix))) return { files: [], truncated: false }
    // List everything, sort, then cut, so that "first N items" means the first N paths
    // in sorted order. ripgrep sorts too (`--sort path`: one walking thread, in its own
    // process), by path component, which is nearly code-unit order: sorting that here
    // takes ~8 ms for 85,000 paths where ripgrep's parallel order took ~115 ms of this
    // thread, a stall every session on a big tree felt as a slow step.
    return withScope(prefix, async (scope) => {
      const { lines } = await collectRipgrepLines(['--files', '--sort', 'path', ...scope], {
        cwd: realRoot,
        signal: listOpts.signal,
      })
      const files = matches ? lines.filter(matches) : lines
      files.sort() // the default order is code-unit order, as comparePaths
      if (files.length <= limit) return { files, truncated: false }
      files.length = limit
      return { files, truncated: true }
    })
  }

  const ripgrep: Sandbox['ripgrep'] = (args, rgOpts) => {
    const prefix = normalizePrefix(rgOpts.prefix)
    if (prefix && (deny.isDenied(prefix) || gitignored(prefix)))
      return Promise.resolve({ code: 1, stderr: '', stopped: false })
    const isSecretLink = secretLinkCheck()
    const onLine = (line: Buffer) => {
      const file = rgOpts.fileOf(line)
      return file !== undefined && isSecretLink(file) ? true : rgOpts.onLine(line)
    }
    return withScope(prefix, async (scope) => {
      return runRipgrep([...args, ...scope], { cwd: realRoot, signal: rgOpts.signal, onLine })
    })
  }

  return {
    root: realRoot,
    denyPatterns: deny.patterns,
    resolve,
    isDenied: (rel) => deny.isDenied(rel),
    isIgnored: (rel) => deny.isDenied(rel) || gitignored(rel),
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

function deniedMessage(input: string, pattern: string): string {
  if (pattern === '.git/' || pattern === '.git') {
    return `"${input}" is inside .git/, which the file tools never touch; use the git tools (git_status, git_diff, git_log, git_show) instead.`
  }
  return (
    `"${input}" is denied by the sandbox (it matches "${pattern}": secrets, dependencies and build output are off limits to the file tools). ` +
    'Do not try to read or change it another way; if the task really needs it, ask the user.'
  )
}
