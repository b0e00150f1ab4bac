import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it, onTestFinished } from 'vitest'
import type { ApprovalPolicy } from '../../shared/protocol'
import type { ApprovalRequest } from '../agent/approvals'
import { runAction, type MutationDeps } from '../agent/mutations'
import { testMutationDeps } from '../agent/test-support'
import { runCommandTool } from '../tools/exec'
import type { ToolContext } from '../tools/types'
import {
  probeSandboxSoon,
  resetSandboxStatus,
  sandboxStatus,
  unconfinedCommandProblem,
} from './sandbox-probe'
import { commandSettingsFrom } from './settings'

/* Where bwrap cannot run: said once, and commands are refused unless the user allows them. */

/** Probes with no bwrap on PATH (as on a machine without it), then restores PATH; the result stays cached. */
function probeWithoutBwrap(): void {
  const saved = process.env.PATH
  process.env.PATH = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-nobwrap-'))
  try {
    resetSandboxStatus()
    sandboxStatus()
  } finally {
    process.env.PATH = saved
  }
}

afterEach(() => resetSandboxStatus())

function depsFor(policy: ApprovalPolicy, settings: unknown, answers: ApprovalRequest[]): MutationDeps {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-unconfined-'))
  onTestFinished(() => fs.rmSync(root, { recursive: true, force: true }))
  const toolContext = {
    root,
    commands: commandSettingsFrom(settings),
    signal: new AbortController().signal,
  } as unknown as ToolContext
  return testMutationDeps({
    sessionId: 's',
    toolContext,
    approver: {
      async requestApproval(request) {
        answers.push(request)
        return { decision: 'accept' }
      },
    },
    record: () => {},
    policy: () => policy,
  })
}

describe('without a working sandbox', () => {
  it('says so, with what to do and the setting that allows unconfined commands', () => {
    probeWithoutBwrap()
    const status = sandboxStatus()
    expect(status.available).toBe(false)
    expect(status.summary).toBe('not sandboxed: bwrap (bubblewrap) is not installed')
    expect(status.reason).toMatch(/Install bubblewrap .* "allowUnsandboxed": true/)
    expect(unconfinedCommandProblem(commandSettingsFrom({}))).toMatch(/without the OS sandbox/)
    expect(unconfinedCommandProblem(commandSettingsFrom({ allowUnsandboxed: true }))).toBeUndefined()
    expect(unconfinedCommandProblem(commandSettingsFrom({ sandbox: 'off' }))).toBeUndefined()
  })

  it.each(['auto-edit', 'full-auto'] as const)(
    'refuses commands under %s, even allowlisted ones',
    async (policy) => {
      probeWithoutBwrap()
      const asked: ApprovalRequest[] = []
      const deps = depsFor(policy, {}, asked)
      const result = await runAction(deps, runCommandTool, {
        callId: 'c1',
        input: { command: 'echo ran > ran.txt' },
        signal: new AbortController().signal,
      })
      expect(result.ok).toBe(false)
      expect((result as { error: string }).error).toMatch(
        new RegExp(
          `^Refused: this command would run without the OS sandbox .*"${policy}".*"allowUnsandboxed": true`,
        ),
      )
      expect(asked).toEqual([])
      expect(fs.existsSync(path.join(deps.toolContext.root, 'ran.txt'))).toBe(false)
    },
  )

  it('asks for each command under ask, with the warning, and runs it once approved', async () => {
    probeWithoutBwrap()
    const asked: ApprovalRequest[] = []
    const deps = depsFor('ask', {}, asked)
    // `ls` is allowlisted: it would run unasked with a sandbox.
    const result = await runAction(deps, runCommandTool, {
      callId: 'c1',
      input: { command: 'ls' },
      signal: new AbortController().signal,
    })
    expect(asked).toHaveLength(1)
    expect(asked[0].why).toMatch(/^WARNING: this command would run without the OS sandbox/)
    expect(result).toMatchObject({ ok: true, sandboxed: false })
  })

  it('runs commands unconfined under full-auto when the user allowed it', async () => {
    probeWithoutBwrap()
    const deps = depsFor('full-auto', { allowUnsandboxed: true }, [])
    const result = await runAction(deps, runCommandTool, {
      callId: 'c1',
      input: { command: 'echo ran > ran.txt' },
      signal: new AbortController().signal,
    })
    expect(result).toMatchObject({ ok: true, sandboxed: false })
    expect(fs.readFileSync(path.join(deps.toolContext.root, 'ran.txt'), 'utf8')).toBe('ran\n')
  })
})

describe('the probe in the background (probeSandboxSoon)', () => {
  it('finds what the probe on this thread finds, and leaves it for sandboxStatus', async () => {
    resetSandboxStatus()
    const onThisThread = sandboxStatus()
    resetSandboxStatus()
    const inBackground = await probeSandboxSoon()
    expect(inBackground).toEqual(onThisThread)
    expect(sandboxStatus()).toBe(inBackground)
  })

  it('lets the event loop turn while bwrap runs', async () => {
    resetSandboxStatus()
    let turns = 0
    const ticker = setInterval(() => (turns += 1), 1)
    try {
      await probeSandboxSoon()
    } finally {
      clearInterval(ticker)
    }
    // bwrap is started at least once where it is installed; without it there is nothing to wait on.
    if (sandboxStatus().summary !== 'not sandboxed: bwrap (bubblewrap) is not installed')
      expect(turns).toBeGreaterThan(0)
  })

  it('leaves nothing behind when reset while it runs (a later probe decides)', async () => {
    resetSandboxStatus()
    const inFlight = probeSandboxSoon()
    resetSandboxStatus()
    const saved = process.env.PATH
    process.env.PATH = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-nobwrap-'))
    try {
      await inFlight
      expect(sandboxStatus().summary).toBe('not sandboxed: bwrap (bubblewrap) is not installed')
    } finally {
      process.env.PATH = saved
    }
  })

  it('says the same where bwrap is missing', async () => {
    const saved = process.env.PATH
    process.env.PATH = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-nobwrap-'))
    try {
      resetSandboxStatus()
      const status = await probeSandboxSoon()
      expect(status.available).toBe(false)
      expect(status.summary).toBe('not sandboxed: bwrap (bubblewrap) is not installed')
    } finally {
      process.env.PATH = saved
    }
  })
})
