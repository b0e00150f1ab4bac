import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { findResourcesDir } from '../config/resources'
import { buildSystemPrompt } from './prompt'

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

  it("carries the original agent's standing rules: security and public contracts stay, the user's language", () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-prompt-'))
    const text = buildSystemPrompt(root).text.replace(/\s+/g, ' ')
    expect(text).toContain('Never weaken security')
    expect(text).toContain('never change a public API contract')
    expect(text).toContain("Answer in the user's language")
  })

  it("appends the project's AGENTS.md", () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-prompt-'))
    fs.writeFileSync(path.join(root, 'AGENTS.md'), 'Always use tabs.\n')
    const prompt = buildSystemPrompt(root)
    expect(prompt.ruleFiles).toEqual(['AGENTS.md'])
    expect(prompt.text).toMatch(/# Project rules \(AGENTS\.md\)[\s\S]*Always use tabs\.$/)
  })

  it('reads the rule files other agents use, including a .clinerules folder', () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-prompt-'))
    fs.writeFileSync(path.join(root, 'CLAUDE.md'), 'Run npm test.\n')
    fs.mkdirSync(path.join(root, '.clinerules'))
    fs.writeFileSync(path.join(root, '.clinerules', 'b.md'), 'Rule B')
    fs.writeFileSync(path.join(root, '.clinerules', 'a.md'), 'Rule A')
    fs.mkdirSync(path.join(root, '.github'))
    fs.writeFileSync(path.join(root, '.github', 'copilot-instructions.md'), 'Prefer const.')
    const prompt = buildSystemPrompt(root)
    expect(prompt.ruleFiles).toEqual([
      'CLAUDE.md',
      '.clinerules/a.md',
      '.clinerules/b.md',
      '.github/copilot-instructions.md',
    ])
    expect(prompt.text.indexOf('Rule A')).toBeLessThan(prompt.text.indexOf('Rule B'))
    expect(prompt.text).toContain('Prefer const.')
  })

  it('cuts a huge AGENTS.md and says so', () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-prompt-'))
    fs.writeFileSync(path.join(root, 'AGENTS.md'), 'x'.repeat(200_000))
    const prompt = buildSystemPrompt(root)
    expect(prompt.text).toContain('[TRUNCATED: AGENTS.md is 200000 bytes; showing the first 64 KB]')
    expect(prompt.text.length).toBeLessThan(80_000)
  })
})
