import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { onTestFinished } from 'vitest'
import { createSandbox } from '../containment/sandbox'
import type { Sandbox } from '../containment/types'
import { openStore } from '../store/store'
import type { Store } from '../store/types'
import { createCodeIndex, type CodeIndex, type CodeIndexOptions } from './code-index'

/* Shared by the index's and the code tools' tests: a real temp project, a real SQLite store. */

export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel)
    fs.mkdirSync(path.dirname(abs), { recursive: true })
    fs.writeFileSync(abs, content)
  }
}

export interface IndexFixture {
  root: string
  store: Store
  sandbox: Sandbox
  index: CodeIndex
}

export async function indexedProject(
  files: Record<string, string | Buffer>,
  opts: Partial<CodeIndexOptions> & { store?: Store; root?: string } = {},
): Promise<IndexFixture> {
  const root = opts.root ?? tempDir('stepwise-index-')
  writeTree(root, files)
  let store = opts.store
  if (!store) {
    const s = openStore(tempDir('stepwise-index-data-'))
    onTestFinished(() => s.close())
    store = s
  }
  const sandbox = opts.sandbox ?? (await createSandbox(root))
  const index = createCodeIndex(store, { workers: 1, ...opts, root: sandbox.root, sandbox })
  return { root: sandbox.root, store, sandbox, index }
}
