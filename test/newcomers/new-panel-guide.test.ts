/**
 * docs/newcomers.md's "A new panel" stays true: its example is shown as the file stands
 * (src/renderer/src/panels/registry.test.ts contributes and renders that same file).
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(__dirname, '../..')
const EXAMPLE = 'src/renderer/src/panels/examplePanel.tsx'

describe('the newcomers guide’s panel section', () => {
  const guide = fs.readFileSync(path.join(ROOT, 'docs/newcomers.md'), 'utf8')
  const section = guide.slice(guide.indexOf('## A new panel'))

  it('shows the example panel as the file stands', () => {
    const block = new RegExp(`<!-- file: ${EXAMPLE} -->\\s*\`\`\`tsx\\n([\\s\\S]*?)\`\`\``).exec(section)
    expect(block?.[1]).toBe(fs.readFileSync(path.join(ROOT, EXAMPLE), 'utf8'))
  })

  it('names files that exist', () => {
    const named = [...section.matchAll(/`((?:panels|layout|palette|settings)\/[\w.]+\.tsx?)`/g)].map(
      (m) => m[1],
    )
    expect(named.length).toBeGreaterThan(3)
    for (const file of named)
      expect(fs.existsSync(path.join(ROOT, 'src/renderer/src', file)), file).toBe(true)
  })
})
