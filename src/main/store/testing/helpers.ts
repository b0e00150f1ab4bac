import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { bindingName } from '../sqlite'

/** A fresh temp directory (the caller removes it). */
export function tempDir(prefix = 'stepwise-store-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix))
}

/** A promise settled from outside, for a test to decide when something happens. */
export function deferred(): { promise: Promise<void>; resolve(): void; reject(err: Error): void } {
  let resolve!: () => void
  let reject!: (err: Error) => void
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)))
  return { promise, resolve, reject }
}

/** Polls `probe` every 10 ms until it gives a value (not undefined or false); fails after `timeoutMs`. */
export async function until<T>(
  what: string,
  probe: () => T | undefined | false,
  timeoutMs = 10_000,
): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const value = probe()
    if (value !== undefined && value !== false) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** Absolute path of the SQLite binding this runtime loads, for child processes. */
export const sqliteBindingPath = createRequire(import.meta.url).resolve(bindingName)

/** `--import` argument that lets a child `node` import .ts sources. */
export const registerTsUrl = pathToFileURL(fileURLToPath(new URL('./register-ts.mjs', import.meta.url))).href

/** File URL of a module under src/main/store (for child scripts). */
export const storeModuleUrl = pathToFileURL(fileURLToPath(new URL('../store.ts', import.meta.url))).href

/**
 * Spawns `node` running `source` (an ES module) and resolves once its stdout
 * has printed a line matching `ready`.
 */
export function spawnNode(
  source: string,
  ready: RegExp,
  opts: { tsSources?: boolean; onLine?: (line: string) => void } = {},
): Promise<{ child: ChildProcess; lines: string[] }> {
  const args = [...(opts.tsSources ? ['--import', registerTsUrl] : []), '--input-type=module', '-e', source]
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  const lines: string[] = []
  let stderr = ''
  return new Promise((resolve, reject) => {
    let buffered = ''
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk
      const parts = buffered.split('\n')
      buffered = parts.pop()!
      for (const line of parts) {
        lines.push(line)
        opts.onLine?.(line)
        if (ready.test(line)) resolve({ child, lines })
      }
    })
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('exit', (code, signal) =>
      reject(new Error(`child exited (${code ?? signal}) before ready: ${stderr}`)),
    )
    child.on('error', reject)
  })
}

/** Resolves when the child has exited and its output has been fully read. */
export function waitForExit(child: ChildProcess): Promise<void> {
  if ((child.exitCode !== null || child.signalCode !== null) && child.stdout?.readableEnded !== false) {
    return Promise.resolve()
  }
  return new Promise((resolve) => child.once('close', () => resolve()))
}
