import { databaseOf } from '../store/handle'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createCodeIndex } from '../codeindex/code-index'
import { indexedProject } from '../codeindex/test-support'
import { buildRepoMap, PARTIAL_RANKED_MAX_FILES, repoMapBudget, treeOutline } from './repo-map'
import { tokenizerFor } from './tokens'

function project(files: number): Record<string, string> {
  const tree: Record<string, string> = {
    'src/core/store.ts':
      'export class Store {\n  get(key: string) { return key }\n}\nexport function openStore() { return new Store() }\n',
  }
  for (let i = 0; i < files; i++) {
    tree[`src/features/f${i}.ts`] =
      `import { openStore, Store } from '../core/store'\nexport function feature${i}(s: Store) {\n  return openStore().get('k${i}')\n}\n`
  }
  return tree
}

describe('buildRepoMap', () => {
  it('puts the most referenced definitions first, with line numbers and no code bodies', async () => {
    const { index } = await indexedProject(project(12))
    await index.build()
    const map = buildRepoMap(index, { budgetTokens: 4000 })
    const lines = map.text.split('\n')
    const first = lines.findIndex((l) => l.startsWith('src/'))
    expect(lines[first]).toBe('src/core/store.ts')
    expect(lines[first + 1]).toMatch(/class Store \(1\).*function openStore \(4\)/)
    expect(map.text).toContain('Folders (files indexed): src/ 13')
    expect(map.text).not.toContain('return key')
    expect(map.files).toBe(13)
  })

  it('is kept with the index: a new process reuses it without loading facts, until the index changes', async () => {
    const { index, store, root, sandbox } = await indexedProject(project(12))
    await index.build()
    const map = buildRepoMap(index, { budgetTokens: 4000 })
    // Any parse of this file's facts throws: a reused map never parses them.
    databaseOf(store)
      .prepare("UPDATE code_files SET facts = '{corrupt' WHERE path = 'src/features/f3.ts'")
      .run()
    const warm = createCodeIndex(store, { root, sandbox, workers: 1 })
    expect(buildRepoMap(warm, { budgetTokens: 4000 })).toEqual(map)
    // Another budget is another map, made from the facts.
    expect(() => buildRepoMap(warm, { budgetTokens: 600 })).toThrow(SyntaxError)

    // A changed file changes the index's generation: the map is made again (f3's facts are needed again).
    fs.appendFileSync(path.join(root, 'src/features/f5.ts'), 'export const added = 1\n')
    await warm.update(['src/features/f5.ts'])
    expect(() => buildRepoMap(warm, { budgetTokens: 4000 })).toThrow(SyntaxError)
    fs.appendFileSync(path.join(root, 'src/features/f3.ts'), '\n')
    await warm.update(['src/features/f3.ts'])
    const remade = buildRepoMap(warm, { budgetTokens: 4000 })
    expect(remade.text).toContain('src/core/store.ts')
    expect(buildRepoMap(createCodeIndex(store, { root, sandbox }), { budgetTokens: 4000 })).toEqual(remade)
  })

  it('is the folder summary alone past the ranked-map limit, and says why', async () => {
    const { index } = await indexedProject(project(12))
    await index.build()
    const map = buildRepoMap(index, { budgetTokens: 4000, maxRankedFiles: 10 })
    expect(map.text).toContain('Folders (files indexed): src/ 13')
    expect(map.text).toContain('too big for a ranked map (13 files indexed)')
    expect(map.text).not.toContain('class Store')
    expect(map).toMatchObject({ files: 0, symbols: 0 })
  })

  it('is the folder summary while a big index is still incomplete: ranking it again at every start costs too much', async () => {
    const { index } = await indexedProject(project(PARTIAL_RANKED_MAX_FILES + 200))
    // Stopped once more than the limit is indexed: an index an earlier session left unfinished.
    const stop = new AbortController()
    const report = await index.build({
      signal: stop.signal,
      onProgress: (p) => p.phase === 'indexing' && p.done > PARTIAL_RANKED_MAX_FILES && stop.abort(),
    })
    expect(report.aborted).toBe(true)
    const indexed = index.paths().length
    expect(indexed).toBeGreaterThan(PARTIAL_RANKED_MAX_FILES)
    const map = buildRepoMap(index, { budgetTokens: 4000 })
    expect(map.text).toContain(`A ranked map waits for the whole index (${indexed} files indexed so far)`)
    expect(map.text).not.toContain('class Store')
    expect(map).toMatchObject({ files: 0, symbols: 0 })
  }, 60_000)

  it('stays within its token budget and says what it left out', async () => {
    const { index } = await indexedProject(project(200))
    await index.build()
    const map = buildRepoMap(index, { budgetTokens: 500 })
    expect(tokenizerFor('')(map.text)).toBeLessThanOrEqual(520)
    expect(map.text).toMatch(/\(\+\d+ more files: list_files or get_structure shows them\)/)
    expect(map.text).toContain('src/core/store.ts')
  })

  it('budgets a tenth of the window, between 500 and 4,000 tokens; a twentieth of a small window', () => {
    expect(repoMapBudget(16384)).toBe(1638)
    expect(repoMapBudget(8193)).toBe(819)
    expect(repoMapBudget(8192)).toBe(409)
    expect(repoMapBudget(2048)).toBe(102)
    expect(repoMapBudget(1_000_000)).toBe(4000)
  })
})

describe('treeOutline', () => {
  // The reference: each path's folder two deep by splitting it, counted, in the outline's order.
  function splitCounts(paths: string[]): string[] {
    const counts = new Map<string, number>()
    for (const p of paths) {
      const parts = p.split('/')
      const key =
        parts.length === 1 ? '(root)' : parts.length === 2 ? `${parts[0]}/` : `${parts[0]}/${parts[1]}/`
      counts.set(key, (counts.get(key) ?? 0) + 1)
    }
    return [...counts].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([dir, n]) => `${dir} ${n}`)
  }

  it('counts each path under its folder two deep, sorted listing or not', () => {
    const sorted = [
      'README.md',
      'a/README',
      'a/b/c.ts',
      'a/b/d/e.ts',
      'a/bc.ts',
      'a/x.ts',
      'ab/c/d.ts',
      'package.json',
      'z/y/x/w.ts',
    ]
    const shuffled = [...sorted].reverse()
    for (const paths of [sorted, shuffled]) {
      const lines = treeOutline(paths).split('\n').slice(1)
      expect(lines).toEqual(splitCounts(paths))
    }
    expect(treeOutline(sorted)).toContain('a/ 3')
    expect(treeOutline(sorted)).toContain('a/b/ 2')
  })

  it('shows at most the given number of folders and says how many more there are', () => {
    const paths = Array.from({ length: 50 }, (_, i) => `f${String(i).padStart(2, '0')}/g/h.ts`)
    const text = treeOutline(paths, 10)
    expect(text.split('\n')).toHaveLength(12)
    expect(text).toContain('(+40 more folders')
  })
})
