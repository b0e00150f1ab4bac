/**
 * docs/newcomers.md stays true: each code block it marks `<!-- file: PATH -->` is that file as
 * it stands, each marked `<!-- excerpt: PATH -->` is found in that file, and the worked examples
 * themselves work (the tool here; the provider in test/provider-echo, end to end).
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseToolCall, toolSpecs } from '../../src/main/tools/registry'
import { errorOf, makeContext, makeProject, okResult } from '../../src/main/tools/test-support'
import { countLinesTool } from './count-lines-tool'

const ROOT = path.resolve(__dirname, '../..')
const GUIDE = fs.readFileSync(path.join(ROOT, 'docs/newcomers.md'), 'utf8')

interface Marked {
  kind: 'file' | 'excerpt'
  file: string
  code: string
}

function markedBlocks(markdown: string): Marked[] {
  const re = /<!-- (file|excerpt): (\S+) -->\s*```[a-z]*\n([\s\S]*?)```/g
  return [...markdown.matchAll(re)].map((m) => ({ kind: m[1] as Marked['kind'], file: m[2], code: m[3] }))
}

describe('the newcomers guide', () => {
  const blocks = markedBlocks(GUIDE)

  it('shows a tool, a provider, a slash command and a panel, each tied to a file', () => {
    expect(blocks.map((b) => b.file)).toEqual([
      'test/newcomers/count-lines-tool.ts',
      'test/provider-echo/echo-provider.ts',
      'src/renderer/src/settings/contribution.tsx',
      'src/renderer/src/panels/examplePanel.tsx',
    ])
  })

  it.each(markedBlocks(GUIDE).map((b) => [b.file, b] as const))('shows %s as it stands', (_file, block) => {
    const source = fs.readFileSync(path.join(ROOT, block.file), 'utf8')
    if (block.kind === 'file') expect(block.code).toBe(source)
    else expect(source).toContain(block.code)
  })

  it('puts its four sections first, in this order', () => {
    const headings = GUIDE.split('\n').filter((l) => l.startsWith('## '))
    expect(headings.slice(0, 4)).toEqual([
      '## A new tool',
      '## A new provider',
      '## A new slash command',
      '## A new panel',
    ])
  })
})

describe('the worked example tool', () => {
  it('is what the model sees and counts lines in the project', async () => {
    const root = makeProject({ 'a.txt': 'one\ntwo\n', 'empty.txt': '' })
    const ctx = await makeContext(root)
    const [spec] = toolSpecs([countLinesTool])
    expect(spec.name).toBe('count_lines')
    const call = parseToolCall(countLinesTool, '{"path":"a.txt"}')
    expect(call).toEqual({ ok: true, input: { path: 'a.txt' } })
    expect(okResult(await countLinesTool.run({ path: 'a.txt' }, ctx))).toMatchObject({ lines: 2 })
    expect(okResult(await countLinesTool.run({ path: 'empty.txt' }, ctx))).toMatchObject({ lines: 0 })
  })

  it('refuses a path outside the project, as every tool does', async () => {
    const ctx = await makeContext(makeProject({ 'a.txt': 'one\n' }))
    expect(errorOf(await countLinesTool.run({ path: '../../etc/passwd' }, ctx))).toMatch(/outside|project/i)
  })
})
