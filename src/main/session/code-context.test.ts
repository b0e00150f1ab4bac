import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { BuildProgress } from '../codeindex/code-index'
import { tempDir, writeTree } from '../codeindex/test-support'
import type { ModelProvider } from '../providers/types'
import { createSandbox } from '../containment/sandbox'
import { openStore } from '../store/store'
import { onIndexProgress, prepareCodeContext } from './code-context'

/* The session's side of the code index: a real project, a real store, the build in the background. */

const provider = {
  id: 'ollama',
  model: 'test-model',
  contextWindow: async () => 32_768,
} as unknown as ModelProvider

function project(count: number): string {
  const root = tempDir('stepwise-code-context-')
  const files: Record<string, string> = {}
  for (let i = 0; i < count; i++)
    files[`src/m${i}.ts`] =
      `import { f${(i + 1) % count} } from './m${(i + 1) % count}'\nexport function f${i}() { return f${(i + 1) % count} }\n`
  writeTree(root, files)
  return root
}

describe('prepareCodeContext', () => {
  it('does not wait for the build: the map says it is partial, and closing the watcher stops the build', async () => {
    const store = openStore(tempDir('stepwise-code-context-data-'))
    try {
      const sandbox = await createSandbox(project(120))
      const seen: BuildProgress[] = []
      const stopListening = onIndexProgress((root, p) => root === sandbox.root && seen.push(p))
      const code = await prepareCodeContext(store, sandbox, provider, { waitMs: 0 })
      expect(code.repoMap?.text).toMatch(
        /Partial map: the code index is still being built in the background \(\d+/,
      )
      const watcher = code.watch()!
      await watcher.close()
      const stopped = await code.indexing
      expect(stopped?.aborted).toBe(true)

      // The next session finishes the build within its wait and gets the whole map.
      const next = await prepareCodeContext(store, sandbox, provider, { waitMs: 60_000 })
      const report = await next.indexing
      expect(report).toMatchObject({ files: 120, aborted: false })
      expect(next.repoMap?.text).not.toMatch(/Partial map/)
      expect(next.repoMap?.text).toMatch(/src\/m\d+\.ts/)
      stopListening()
      expect(seen.at(-1)).toEqual({ phase: 'done', done: 120, total: 120 })
      await next.watch()?.close()

      // A new process over the finished index: its map is whole at once, while the
      // build only checks the stored files against the disk.
      const store2 = openStore(path.dirname(store.path))
      try {
        const warm = await prepareCodeContext(store2, sandbox, provider, { waitMs: 0 })
        expect(warm.repoMap?.text).not.toMatch(/Partial map/)
        expect(warm.repoMap?.files).toBe(next.repoMap?.files)
        expect(warm.repoMap?.text).toBe(next.repoMap?.text)
        await warm.watch()?.close()
      } finally {
        store2.close()
      }
    } finally {
      store.close()
    }
  })
})
