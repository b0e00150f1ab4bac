import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildSystemPrompt } from '../agent/prompt'
import { REVIEW_READ_TOOLS } from '../review/review'
import { allTools, toolSpecs } from '../tools/registry'
import { compactToolSpecs, toolSpecsForWindow } from './compact-prompt'
import { repoMapBudget } from './repo-map'
import { tokenizerFor } from './tokens'

const count = tokenizerFor('qwen2.5-coder:7b')

/** System prompt + tool specs + the repo map's budget: what a session spends before its task. */
function promptTokens(windowTokens: number): { system: number; tools: number; map: number; total: number } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-compact-'))
  try {
    const system = count(buildSystemPrompt(root).text)
    const tools = count(JSON.stringify(toolSpecsForWindow(allTools, windowTokens)))
    const map = repoMapBudget(windowTokens)
    return { system, tools, map, total: system + tools + map }
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
}

describe('the compact prompt of small windows', () => {
  it('costs well under half of the full prompt, in tokens', () => {
    const full = promptTokens(16384)
    const compact = promptTokens(8192)
    // Measured: full ≈ 396 + 3626 + 1638 tokens, compact ≈ 396 + 1001 + 409 (see the report).
    expect(full.tools).toBeGreaterThan(3000)
    expect(compact.tools).toBeLessThan(1100)
    expect(compact.map).toBe(409)
    expect(compact.total).toBeLessThan(0.4 * full.total)
    // At 8k, what is left for the work itself is most of the window.
    expect(compact.total / 8192).toBeLessThan(0.25)
  })

  it('offers an editing session the tools that read, edit and run, with one-line descriptions', () => {
    const names = compactToolSpecs(allTools).map((s) => s.name)
    expect(names).toEqual([
      'list_files',
      'read_file',
      'search_in_files',
      'write_file',
      'edit_file',
      'edit_lines',
      'delete_file',
      'run_command',
      'run_tests',
      'run_build',
    ])
    for (const spec of compactToolSpecs(allTools)) {
      expect(spec.description.length).toBeLessThanOrEqual(140)
      const props = (spec.parameters.properties ?? {}) as Record<string, { description?: string }>
      for (const p of Object.values(props)) expect((p.description ?? '').length).toBeLessThanOrEqual(60)
    }
    // The rule a small model most needs about read_file's numbering survives.
    expect(compactToolSpecs(allTools)[1].description).toMatch(/prefix is not part of the file/)
  })

  it('keeps a review its diff tools, and leaves the full set to larger windows', () => {
    const review = compactToolSpecs(REVIEW_READ_TOOLS).map((s) => s.name)
    expect(review).toContain('diff_file_against_original')
    expect(review).toContain('git_diff')
    expect(review).not.toContain('get_structure')
    expect(toolSpecsForWindow(allTools, 8193)).toEqual(toolSpecs(allTools))
    expect(toolSpecsForWindow(allTools, 4096)).toEqual(compactToolSpecs(allTools))
  })
})
