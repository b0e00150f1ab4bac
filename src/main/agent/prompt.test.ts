import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { buildSystemPrompt, findResourcesDir } from './prompt'

let root: string | undefined
afterEach(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true })
  root = undefined
})

describe('buildSystemPrompt', () => {
  it('is the prompt from resources/prompts alone when the project has no rules', () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-prompt-'))
    const base = fs.readFileSync(path.join(findResourcesDir(), 'prompts', 'system.md'), 'utf8').trim()
    expect(buildSystemPrompt(root)).toEqual({ text: base, ruleFiles: [] })
  })

  it("appends the project's AGENTS.md", () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-prompt-'))
    fs.writeFileSync(path.join(root, 'AGENTS.md'), 'Always use tabs.\n')
    const prompt = buildSystemPrompt(root)
    expect(prompt.ruleFiles).toEqual(['AGENTS.md'])
    expect(prompt.text).toMatch(/# Project rules \(AGENTS\.md\)[\s\S]*Always use tabs\.$/)
  })

  it('cuts a huge AGENTS.md and says so', () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-prompt-'))
    fs.writeFileSync(path.join(root, 'AGENTS.md'), 'x'.repeat(200_000))
    const prompt = buildSystemPrompt(root)
    expect(prompt.text).toContain('[TRUNCATED: AGENTS.md is 200000 bytes; showing the first 64 KB]')
    expect(prompt.text.length).toBeLessThan(80_000)
  })
})
