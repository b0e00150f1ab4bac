import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { onTestFinished } from 'vitest'
import { createSandbox, type SandboxOptions } from '../containment/sandbox'
import { createReadTracker } from './read-tracker'
import type { BaselineReader } from '../snapshot/baseline-reader'
import type { ToolContext, ToolResult } from './types'

/* Shared by the tools' tests: a real temp project and a real context over it. */

export function makeProject(files: Record<string, string | Buffer>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-tools-'))
  onTestFinished(() => fs.rmSync(root, { recursive: true, force: true }))
  writeFiles(root, files)
  return root
}

export function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel)
    fs.mkdirSync(path.dirname(abs), { recursive: true })
    fs.writeFileSync(abs, content)
  }
}

export async function makeContext(
  root: string,
  opts: SandboxOptions & { baseline?: BaselineReader } = {},
): Promise<ToolContext> {
  const sandbox = await createSandbox(root, opts)
  return {
    root: sandbox.root,
    sandbox,
    reads: createReadTracker(),
    limits: { maxReadBytes: 400 * 1024, maxWriteBytes: 800 * 1024 },
    baseline: opts.baseline,
    signal: new AbortController().signal,
  }
}

/** Narrows a ToolResult for assertions, failing with the error text when it is not ok. */
export function okResult(result: ToolResult): Record<string, unknown> {
  if (!result.ok) throw new Error(`expected ok, got error: ${result.error}`)
  return result
}

/** The error of a failed result, outcome or proposal; throws when it did not fail. */
export function errorOf(result: { ok?: boolean; error?: unknown }): string {
  if (result.ok === false && typeof result.error === 'string') return result.error
  throw new Error(`expected an error, got ${JSON.stringify(result)}`)
}

/** Runs git in `cwd` and returns its stdout (throws with git's stderr on failure). */
export const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

/** A real repository with one commit of `files`, identity configured locally. */
export function repoWith(files: Record<string, string>): string {
  const root = makeProject(files)
  git(root, 'init', '-q', '-b', 'main')
  git(root, 'config', 'user.email', 'dev@example.com')
  git(root, 'config', 'user.name', 'Dev')
  git(root, 'config', 'commit.gpgsign', 'false')
  git(root, 'add', '-A')
  git(root, 'commit', '-qm', 'initial')
  return root
}
