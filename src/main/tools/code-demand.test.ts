import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CodeIndex } from '../codeindex/code-index'
import { indexedProject } from '../codeindex/test-support'
import {
  findDefinitionTool,
  findReferencesTool,
  getClassTool,
  getDependenciesTool,
  getFunctionTool,
  getStructureTool,
  getTodosTool,
} from './code'
import { makeContext } from './test-support'
import type { ToolContext } from './types'

/*
 * The code tools while the index has not reached every file (a first build still running):
 * a file it lacks is parsed now and answered as if indexed; the project-wide tools say how
 * much is covered and complete their answers from the files it has not reached.
 */

const INDEXED = {
  'src/math.ts': 'export function addNumbers(a: number, b: number) {\n  return a + b\n}\n',
}
const LATER = {
  'src/calc.ts':
    "import { addNumbers } from './math'\n\nexport class Calculator {\n  total = 0\n  add(n: number) {\n    // TODO: overflow\n    this.total = addNumbers(this.total, n)\n  }\n}\n",
  'tools/greet.py': 'def greet_all(names):\n    return [n for n in names]\n',
}

/** An index that has indexed INDEXED only, with LATER on disk, seen as mid-build. */
async function partialContext(): Promise<ToolContext & { index: CodeIndex }> {
  const { index, root } = await indexedProject(INDEXED)
  await index.build()
  for (const [rel, text] of Object.entries(LATER)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), text)
  }
  // The build that would index LATER is under way: the real index, with its progress.
  const building: CodeIndex = Object.create(index) as CodeIndex
  building.building = () => ({ phase: 'indexing', done: 1, total: 3 })
  building.complete = () => false
  return { ...(await makeContext(root)), index: building }
}

describe('code tools on a file the index has not reached', () => {
  it('parse it now and answer as if it were indexed', async () => {
    const ctx = await partialContext()
    expect(ctx.index.file('src/calc.ts')).toBeUndefined()
    expect(await getStructureTool.run({ path: 'src/calc.ts' }, ctx)).toMatchObject({
      ok: true,
      path: 'src/calc.ts',
      language: 'typescript',
    })
    expect(await getFunctionTool.run({ path: 'tools/greet.py', name: 'greet_all' }, ctx)).toMatchObject({
      ok: true,
      name: 'greet_all',
      source: expect.stringContaining('def greet_all(names):'),
    })
    expect(await getClassTool.run({ path: 'src/calc.ts', name: 'Calculator' }, ctx)).toMatchObject({
      ok: true,
      name: 'Calculator',
    })
    expect(await getDependenciesTool.run({ path: 'src/calc.ts' }, ctx)).toMatchObject({
      ok: true,
      dependencies: [{ source: './math', line: 1, kind: 'internal' }],
    })
    expect(await getTodosTool.run({ path: 'src/calc.ts' }, ctx)).toMatchObject({ ok: true, count: 1 })
  })

  it('still refuse an ignored file, naming why', async () => {
    const ctx = await partialContext()
    fs.mkdirSync(path.join(ctx.root, 'build'))
    fs.writeFileSync(path.join(ctx.root, 'build/out.ts'), 'export const x = 1\n')
    expect(await getStructureTool.run({ path: 'build/out.ts' }, ctx)).toMatchObject({
      ok: false,
      error: expect.stringContaining('is not in the code index (ignored'),
    })
  })
})

describe('project-wide code tools on a partial index', () => {
  it('get_structure says how much is covered and lists the files not indexed yet', async () => {
    const ctx = await partialContext()
    expect(await getStructureTool.run({}, ctx)).toMatchObject({
      ok: true,
      file_count: 1,
      not_indexed_yet: ['src/calc.ts', 'tools/greet.py'],
      coverage: { partial: true, indexed_files: 1, total_files: 3 },
      coverage_note: expect.stringContaining('covers 1 of 3 files so far'),
    })
  })

  it('find_definition finds a definition in a file not indexed yet', async () => {
    const ctx = await partialContext()
    expect(await findDefinitionTool.run({ symbol: 'Calculator' }, ctx)).toMatchObject({
      ok: true,
      count: 1,
      definitions: [{ path: 'src/calc.ts', kind: 'class' }],
      coverage: { partial: true },
    })
    expect(await findDefinitionTool.run({ symbol: 'addNumbers' }, ctx)).toMatchObject({
      count: 1,
      definitions: [{ path: 'src/math.ts' }],
    })
  })

  it('find_references adds the lines of files not indexed yet', async () => {
    const ctx = await partialContext()
    const result = await findReferencesTool.run({ symbol: 'addNumbers' }, ctx)
    expect(result).toMatchObject({ ok: true, coverage: { partial: true } })
    expect((result as unknown as { references: unknown[] }).references).toEqual(
      expect.arrayContaining([
        { path: 'src/calc.ts', line: 1, text: "import { addNumbers } from './math'" },
        { path: 'src/calc.ts', line: 7, text: 'this.total = addNumbers(this.total, n)' },
      ]),
    )
  })

  it('a whole index answers as before: no coverage fields', async () => {
    const { index, root } = await indexedProject({ ...INDEXED, ...LATER })
    await index.build()
    const ctx = { ...(await makeContext(root)), index }
    const result = await findDefinitionTool.run({ symbol: 'Calculator' }, ctx)
    expect(result).toMatchObject({ ok: true, count: 1 })
    expect(result).not.toHaveProperty('coverage')
  })
})
