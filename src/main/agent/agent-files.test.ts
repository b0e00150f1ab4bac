import { describe, expect, it } from 'vitest'
import { isAgentFile } from '../containment/agent-files'

describe('files that instruct agents or other tools', () => {
  it.each([
    // Rules files read into agents' prompts ("Rules File Backdoor", Pillar Security 2025).
    'AGENTS.md',
    'packages/app/AGENTS.md',
    'CLAUDE.md',
    'GEMINI.md',
    '.cursorrules',
    '.windsurfrules',
    '.clinerules',
    '.clinerules/style.md',
    '.github/copilot-instructions.md',
    // Editor and agent settings that run commands (CVE-2025-53773, CVE-2025-54135, CVE-2025-59536).
    '.vscode/settings.json',
    '.vscode/tasks.json',
    'web/.vscode/launch.json',
    '.idea/workspace.xml',
    '.claude/settings.json',
    '.cursor/mcp.json',
    '.gemini/settings.json',
    '.mcp.json',
    // Things that run on their own: CI, hooks, direnv.
    '.github/workflows/ci.yml',
    '.gitlab-ci.yml',
    '.husky/pre-commit',
    '.githooks/pre-push',
    '.envrc',
    '.pre-commit-config.yaml',
  ])('%s asks', (file) => {
    expect(isAgentFile(file)).toBe(true)
  })

  it('matches without regard to letter case (macOS and Windows folders ignore it)', () => {
    for (const file of [
      'agents.MD',
      '.VSCode/Tasks.json',
      '.GitHub/Workflows/x.yml',
      './.CursorRules',
      'a\\.vscode\\x.json',
    ])
      expect([file, isAgentFile(file)]).toEqual([file, true])
  })

  it('leaves ordinary files alone, package.json included (its scripts only run through commands, which ask)', () => {
    for (const file of [
      'src/agents.ts',
      'docs/AGENTS.md.bak',
      'package.json',
      'README.md',
      '.github/ISSUE_TEMPLATE/bug.md',
      'vscode/settings.json',
      '',
    ])
      expect([file, isAgentFile(file)]).toEqual([file, false])
  })
})
