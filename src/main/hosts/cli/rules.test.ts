import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { openStore } from '../../store/store'
import { buildProgram } from './main'

/* `stepwise rules` in process, on a real data folder: what it prints is what a user reads. */

let repo: string
let dataDir: string

async function stepwise(...args: string[]): Promise<{ out: string; code: number }> {
  let out = ''
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk)
    return true
  })
  process.exitCode = 0
  try {
    // The data folder before any `--`, after which every word is the rule's.
    const [group, sub, ...rest] = args
    await buildProgram().parseAsync(['node', 'stepwise', group, sub, '--data-dir', dataDir, ...rest])
    return { out, code: Number(process.exitCode ?? 0) }
  } finally {
    write.mockRestore()
    process.exitCode = 0
  }
}

beforeEach(() => {
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-rules-repo-')))
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-rules-data-'))
})
afterEach(() => {
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe('stepwise rules', () => {
  it('adds, lists with a preview, and removes a project rule', async () => {
    expect((await stepwise('rules', 'list', '--repo', repo)).out).toBe('No "always allow" rules.\n')
    const added = await stepwise('rules', 'add', 'npm', 'test', '--repo', repo)
    expect(added.out).toMatch(
      /^1 {2}npm test … {2}\(project\)\n {4}Runs `npm test` with any further arguments/,
    )
    await stepwise('rules', 'add', '--mcp', 'github/create_issue', '--repo', repo)
    const listed = await stepwise('rules', 'list', '--repo', repo, '--json')
    expect(JSON.parse(listed.out).rules).toMatchObject([
      {
        id: 1,
        scope: 'project',
        project: repo,
        pattern: { kind: 'command', words: ['npm', 'test'], exact: false },
      },
      { id: 2, pattern: { kind: 'mcp', server: 'github', tool: 'create_issue' } },
    ])
    expect((await stepwise('rules', 'remove', '1')).out).toBe('removed 1: npm test …\n')
    const store = openStore(dataDir)
    try {
      expect(store.approvals.listRules(repo).map((r) => r.id)).toEqual([2])
    } finally {
      store.close()
    }
    expect((await stepwise('rules', 'remove', '1')).code).toBe(1)
  })

  it('refuses a rule for what the deny list refuses, and bad arguments, with what to do', async () => {
    await expect(stepwise('rules', 'add', '--repo', repo, '--', 'rm', '-rf', '/')).rejects.toThrow(
      /is denied .*a rule cannot allow it/,
    )
    await expect(stepwise('rules', 'add', '--repo', repo)).rejects.toThrow(/name the command words/)
    await expect(stepwise('rules', 'add', '--mcp', 'nothing', '--repo', repo)).rejects.toThrow(/SERVER\/TOOL/)
    await expect(stepwise('rules', 'remove', 'x')).rejects.toThrow(/not a rule id/)
  })
})
