import { describe, expect, it } from 'vitest'
import { indexedProject } from '../codeindex/test-support'
import {
  codeTools,
  findDefinitionTool,
  findReferencesTool,
  getClassTool,
  getComplexityTool,
  getDependenciesTool,
  getDependentsTool,
  getFunctionTool,
  getStructureTool,
  getTodosTool,
} from './code'
import { parseToolCall, toolSpecs } from './registry'
import { errorOf, makeContext, okResult } from './test-support'
import type { ToolContext } from './types'

const PROJECT = {
  'package.json': JSON.stringify({ name: 'demo', main: 'src/main.ts' }),
  'src/main.ts': "import { Store } from './store'\nimport os from 'node:os'\n\nnew Store().save(os.EOL)\n",
  'src/store.ts': [
    "import { fmt } from './fmt'",
    '',
    'export class Store extends Base implements Saver {',
    '  private count = 0',
    '  save(text: string): string {',
    '    this.count++',
    '    return fmt(text)',
    '  }',
    '}',
    '',
  ].join('\n'),
  'src/fmt.ts':
    'export async function fmt(x: string) {\n  // FIXME: trim unicode spaces\n  return x.trim()\n}\n',
  '.env': 'SECRET=1\n',
}

async function context(): Promise<ToolContext> {
  const { index, root } = await indexedProject(PROJECT)
  await index.build()
  return { ...(await makeContext(root)), index }
}

describe('code tools', () => {
  it('are the code family of docs/tools.md with schemas the model can read', () => {
    expect(codeTools.map((t) => t.name)).toEqual([
      'get_structure',
      'get_function',
      'get_class',
      'find_definition',
      'find_references',
      'get_dependencies',
      'get_dependents',
      'get_complexity',
      'get_todos',
    ])
    expect(codeTools.every((t) => t.family === 'code' && !t.mutating)).toBe(true)
    const spec = toolSpecs([getFunctionTool])[0]
    expect(spec.parameters).toMatchObject({ required: ['path', 'name'] })
    expect(parseToolCall(getStructureTool, '{"path": null}')).toEqual({ ok: true, input: {} })
  })

  it('say clearly when the index is not available', async () => {
    const ctx = await makeContext((await indexedProject({ 'a.ts': '' })).root)
    expect(errorOf(await getStructureTool.run({}, ctx))).toMatch(/^The code index is not available/)
    expect(errorOf(await findDefinitionTool.run({ symbol: 'x' }, ctx))).toMatch(/not available/)
  })

  it('get_structure outlines a file and summarises the project', async () => {
    const ctx = await context()
    expect(await getStructureTool.run({ path: 'src/store.ts' }, ctx)).toEqual({
      ok: true,
      path: 'src/store.ts',
      language: 'typescript',
      lines: 9,
      imports: ['./fmt (line 1)'],
      exports: ['Store'],
      classes: [
        {
          name: 'Store',
          kind: 'class',
          lines: '3-9',
          exported: true,
          extends: ['Base'],
          implements: ['Saver'],
          properties: ['private count'],
          methods: ['save(text: string) (5-8)'],
        },
      ],
    })
    const all = okResult(await getStructureTool.run({}, ctx))
    expect(all).toMatchObject({
      path: '.',
      file_count: 4,
      languages: { json: 1, typescript: 3 },
      hubs: ['src/fmt.ts (imported by 1)', 'src/store.ts (imported by 1)'],
      entry_points: ['src/main.ts: named in package.json'],
    })
    expect(all.files).toEqual([
      'package.json (json, 1 lines)',
      'src/fmt.ts (typescript, 4 lines: fmt)',
      'src/main.ts (typescript, 4 lines)',
      'src/store.ts (typescript, 9 lines: Store)',
    ])
    expect(errorOf(await getStructureTool.run({ path: '.env' }, ctx))).toMatch(/denied/)
    expect(errorOf(await getStructureTool.run({ path: 'nope' }, ctx))).toMatch(/does not exist/)
  })

  it('get_function and get_class return numbered source from disk', async () => {
    const ctx = await context()
    expect(await getFunctionTool.run({ path: 'src/store.ts', name: 'Store.save' }, ctx)).toEqual({
      ok: true,
      path: 'src/store.ts',
      name: 'Store.save',
      signature: 'save(text: string)',
      start_line: 5,
      end_line: 8,
      source: '5\t  save(text: string): string {\n6\t    this.count++\n7\t    return fmt(text)\n8\t  }',
    })
    expect(okResult(await getFunctionTool.run({ path: 'src/fmt.ts', name: 'fmt' }, ctx)).signature).toBe(
      'async fmt(x: string)',
    )
    expect(errorOf(await getFunctionTool.run({ path: 'src/store.ts', name: 'load' }, ctx))).toBe(
      'No function "load" in src/store.ts. It defines: Store.save. Use find_definition to search the whole project.',
    )
    const cls = okResult(await getClassTool.run({ path: 'src/store.ts', name: 'Store' }, ctx))
    expect(cls).toMatchObject({
      name: 'Store',
      start_line: 3,
      end_line: 9,
      methods: ['save(text: string) (5-8)'],
    })
    expect(String(cls.source).split('\n')[0]).toBe('3\texport class Store extends Base implements Saver {')
    expect(errorOf(await getClassTool.run({ path: 'src', name: 'Store' }, ctx))).toMatch(/is a directory/)
  })

  it('find_definition and find_references answer by name', async () => {
    const ctx = await context()
    expect(await findDefinitionTool.run({ symbol: 'fmt' }, ctx)).toEqual({
      ok: true,
      symbol: 'fmt',
      count: 1,
      definitions: [{ path: 'src/fmt.ts', lines: '1-4', kind: 'function', exported: true }],
    })
    expect(await findReferencesTool.run({ symbol: 'fmt' }, ctx)).toEqual({
      ok: true,
      symbol: 'fmt',
      count: 2,
      references: [
        { path: 'src/store.ts', line: 1, text: "import { fmt } from './fmt'" },
        { path: 'src/store.ts', line: 7, text: 'return fmt(text)' },
      ],
    })
    expect(okResult(await findDefinitionTool.run({ symbol: 'nothing' }, ctx)).note).toMatch(/^No definition/)
  })

  it('get_dependencies and get_dependents follow the graph', async () => {
    const ctx = await context()
    expect(await getDependenciesTool.run({ path: 'src/main.ts' }, ctx)).toEqual({
      ok: true,
      path: 'src/main.ts',
      count: 2,
      dependencies: [
        { source: './store', line: 1, kind: 'internal', files: ['src/store.ts'] },
        { source: 'node:os', line: 2, kind: 'builtin' },
      ],
    })
    expect(await getDependentsTool.run({ path: 'src/fmt.ts' }, ctx)).toEqual({
      ok: true,
      path: 'src/fmt.ts',
      count: 1,
      dependents: ['src/store.ts'],
    })
  })

  it('get_complexity and get_todos cover a file, a folder or everything', async () => {
    const ctx = await context()
    expect(await getComplexityTool.run({ path: 'src/fmt.ts' }, ctx)).toEqual({
      ok: true,
      path: 'src/fmt.ts',
      loc: 3,
      maxNesting: 0,
      imports: 0,
      score: 0.1,
      longest_functions: [{ name: 'fmt', lines: 4 }],
    })
    const folder = okResult(await getComplexityTool.run({ path: 'src' }, ctx))
    expect((folder.files as Array<{ path: string }>).map((f) => f.path)).toEqual([
      'src/main.ts',
      'src/store.ts',
      'src/fmt.ts',
    ])
    expect(await getTodosTool.run({}, ctx)).toEqual({
      ok: true,
      path: '.',
      count: 1,
      todos: [{ path: 'src/fmt.ts', line: 2, tag: 'FIXME', text: 'trim unicode spaces' }],
    })
  })
})
