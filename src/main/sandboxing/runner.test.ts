import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { sandboxStatus } from './sandbox-probe'
import { runCommand, type RunOptions } from './runner'

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-exec-'))
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Alive and not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

/** Waits (briefly) for SIGKILL to land; a process still alive after that has leaked. */
async function expectAllDead(pids: number[]): Promise<void> {
  expect(pids.length).toBeGreaterThan(0)
  for (let i = 0; i < 100 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 20))
  expect(pids.filter(alive)).toEqual([])
}

const pidsIn = (dir: string) =>
  fs.readFileSync(path.join(dir, 'pids'), 'utf8').split(/\s+/).filter(Boolean).map(Number)

/** A sleep duration no other process uses, to find ours in /proc from outside any PID namespace. */
const uniqueSleep = () => `${100 + Math.floor(Math.random() * 1e6) / 1e6}`

/** Pids of live processes running `sleep <duration>` (works for sandboxed ones too). */
function sleepers(duration: string): number[] {
  const found: number[] = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')
      if (argv[0].endsWith('sleep') && argv[1] === duration && alive(Number(entry))) found.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return found
}

async function expectNoSleepers(duration: string): Promise<void> {
  for (let i = 0; i < 100 && sleepers(duration).length > 0; i++) await new Promise((r) => setTimeout(r, 20))
  expect(sleepers(duration)).toEqual([])
}

const modes: { name: string; sandbox: RunOptions['sandbox'] }[] = [
  { name: 'direct', sandbox: null },
  ...(sandboxStatus().available ? [{ name: 'bwrap', sandbox: { network: false } }] : []),
]

describe.each(modes)('runCommand ($name)', ({ sandbox }) => {
  it('returns the exit code and both streams, streamed as they come', async () => {
    const dir = tempDir()
    const streamed: string[] = []
    const run = await runCommand({
      command: 'echo out; echo err >&2; exit 3',
      cwd: dir,
      timeoutMs: 10_000,
      sandbox,
      onOutput: (stream, text) => streamed.push(`${stream}:${text}`),
    })
    expect([run.exitCode, run.signal, run.timedOut, run.aborted, run.output]).toEqual([
      3,
      null,
      false,
      false,
      'out\nerr\n',
    ])
    expect(streamed.sort()).toEqual(['stderr:err\n', 'stdout:out\n'])
    expect(run.sandboxed).toBe(sandbox !== null)
  })

  it('kills a command that hangs, and every child it started, at the timeout', async () => {
    const dir = tempDir()
    const t = uniqueSleep()
    const run = await runCommand({
      command: `bash -c 'sleep ${t} & echo $! >> pids; trap "" TERM; sleep ${t}' & echo $! >> pids; sleep ${t} & echo $! >> pids; echo started; wait`,
      cwd: dir,
      timeoutMs: 500,
      killGraceMs: 200,
      sandbox,
    })
    expect([run.timedOut, run.output]).toEqual([true, 'started\n'])
    if (!sandbox) await expectAllDead(pidsIn(dir))
    await expectAllDead([run.pid!])
    await expectNoSleepers(t)
  })

  it('returns when the main process exits and kills what it left in the background', async () => {
    const dir = tempDir()
    const t = uniqueSleep()
    const run = await runCommand({
      command: `sleep ${t} & echo $! > pids; nohup sleep ${t} > /dev/null 2>&1 & echo $! >> pids; echo done`,
      cwd: dir,
      timeoutMs: 60_000,
      sandbox,
    })
    expect([run.exitCode, run.timedOut, run.output]).toEqual([0, false, 'done\n'])
    if (!sandbox) await expectAllDead(pidsIn(dir))
    await expectNoSleepers(t)
  })

  it('keeps memory flat and the head and tail of a 200 MB print', async () => {
    const before = process.memoryUsage().rss
    const run = await runCommand({
      command: `printf 'first line\\n'; head -c 200000000 /dev/zero | tr '\\0' x; printf '\\nlast line\\n'`,
      cwd: tempDir(),
      timeoutMs: 60_000,
      sandbox,
    })
    const grew = process.memoryUsage().rss - before
    expect(run.exitCode).toBe(0)
    expect(run.totalBytes).toBe(200_000_000 + 'first line\n\nlast line\n'.length)
    expect(run.output.startsWith('first line\nxxx')).toBe(true)
    expect(run.output.endsWith('xxx\nlast line\n')).toBe(true)
    expect(run.output).toContain(`[TRUNCATED: ${run.omittedBytes} bytes omitted]`)
    expect(run.output.length).toBeLessThan(33 * 1024 + 100)
    expect(grew).toBeLessThan(100 * 1024 * 1024)
  })

  it('shows binary and invalid UTF-8 as replacement characters', async () => {
    const run = await runCommand({
      command: `head -c 65536 /dev/urandom; printf '\\xff\\xfe\\xc3 tail-ok'`,
      cwd: tempDir(),
      timeoutMs: 10_000,
      sandbox,
    })
    expect(run.exitCode).toBe(0)
    expect(run.output.endsWith('\uFFFD\uFFFD\uFFFD tail-ok')).toBe(true)
  })

  it('stops the whole group when aborted mid-run (Stop)', async () => {
    const dir = tempDir()
    const stop = new AbortController()
    const t = uniqueSleep()
    const run = await runCommand({
      command: `sleep ${t} & echo $! > pids; echo running; wait`,
      cwd: dir,
      timeoutMs: 60_000,
      signal: stop.signal,
      sandbox,
      onOutput: (_s, text) => {
        if (text.includes('running')) stop.abort()
      },
    })
    expect([run.aborted, run.timedOut, run.output]).toEqual([true, false, 'running\n'])
    if (!sandbox) await expectAllDead(pidsIn(dir))
    await expectNoSleepers(t)
  })
})

describe('runCommand edge cases', () => {
  it('does not start when already aborted', async () => {
    const stop = new AbortController()
    stop.abort()
    const run = await runCommand({
      command: 'sleep 100',
      cwd: tempDir(),
      timeoutMs: 60_000,
      signal: stop.signal,
    })
    expect([run.aborted, run.exitCode]).toEqual([true, null])
  })

  it('reports a folder that does not exist as a spawn error', async () => {
    const run = await runCommand({ command: 'true', cwd: path.join(tempDir(), 'missing'), timeoutMs: 5000 })
    expect(run.spawnError).toMatch(/^could not start bash: spawn bash ENOENT/)
  })

  it('gives commands an empty stdin, so a read does not wait', async () => {
    const run = await runCommand({ command: 'cat; echo after', cwd: tempDir(), timeoutMs: 10_000 })
    expect([run.exitCode, run.output]).toEqual([0, 'after\n'])
  })
})
