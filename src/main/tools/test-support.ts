import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { onTestFinished } from 'vitest'
import { createSandbox, type SandboxOptions } from '../sandbox/sandbox'
import { createReadTracker } from './read-tracker'
import type { BaselineReader, ToolContext, ToolResult } from './types'

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

export function errorOf(result: ToolResult | { ok: false; error: string } | object): string {
  if ('ok' in result && result.ok === false && 'error' in result) return result.error as string
  throw new Error(`expected an error, got ${JSON.stringify(result)}`)
}
