import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import { ALLOCATOR_ENV } from '../src/main/hosts/cli/launcher'
import { buildCli, editArgs } from '../test/cli-harness'
import { startFakeModelServer, type FakeTurn } from '../test/fake-model-server'

/*
 * One `stepwise edit` as a CLI user runs it, for bench/scale.bench.ts: a new
 * process, the built CLI, the scripted fake model answering at once. Timed from
 * outside: the process's whole life, when each model request arrived at the
 * fake server (the gap between two requests is what one step costs the agent),
 * when its last event line came out, and when the process was gone.
 */

export interface SessionTiming {
  /** Spawn to exit. */
  wall: number
  /** Seconds since spawn at which each model request arrived. */
  requests: number[]
  /** Seconds since spawn of the last `--json` event line. */
  lastEvent: number
  /** Last event to process exit. */
  exitDelay: number
  code: number | null
  stderr: string
  /** The process's largest resident size seen (Linux; 0 elsewhere), in MB. */
  peakRssMb: number
}

/**
 * Built once per run, like the e2e tests build theirs (test/cli-harness.ts), into a folder of
 * this checkout's own: checkouts that share one node_modules would build over each other's.
 */
export function buildBenchCli(): string {
  const checkout = createHash('sha256').update(process.cwd()).digest('hex').slice(0, 8)
  return buildCli(`bench-scale-${checkout}`)
}

export async function timeSession(
  cli: string,
  /** `approve`: the approval policy (`auto-edit` unless said; under `ask` no one answers: refused). */
  at: { repo: string; dataDir: string; approve?: string },
  turns: readonly FakeTurn[],
  extraEnv: Record<string, string> = {},
): Promise<SessionTiming> {
  let spawnedAt = 0
  const requests: number[] = []
  const server = await startFakeModelServer({
    turns: (_req, index) => {
      requests.push(seconds(spawnedAt))
      return turns[index] ?? { text: 'Done.' }
    },
  })
  try {
    const { approve = 'auto-edit', ...where } = at
    const args = editArgs({ ...where, baseUrl: server.v1Url }, 'look around', '--json', '--approve', approve)
    const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv }
    for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OLLAMA_HOST', 'OPENAI_MODEL', 'OLLAMA_MODEL'])
      delete env[name]
    return await new Promise<SessionTiming>((resolve, reject) => {
      spawnedAt = performance.now()
      const started = launch(cli, args)
      const child = spawn(started.file, started.args, {
        env: { ...started.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let lastEvent = 0
      let pending = ''
      let stderr = ''
      child.stdout.on('data', (chunk: Buffer) => {
        pending += chunk.toString()
        // Only a complete event line counts as an event.
        if (pending.includes('\n')) {
          lastEvent = seconds(spawnedAt)
          pending = pending.slice(pending.lastIndexOf('\n') + 1)
        }
      })
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      const rss = setInterval(() => (peakRssMb = Math.max(peakRssMb, residentMb(child.pid))), 100)
      let peakRssMb = 0
      child.on('error', reject)
      // 'exit', not 'close': the process is gone; its pipes may still be draining.
      child.on('exit', (code) => {
        const wall = seconds(spawnedAt)
        clearInterval(rss)
        resolve({ wall, requests, lastEvent, exitDelay: wall - lastEvent, code, stderr, peakRssMb })
      })
    })
  } finally {
    await server.close()
  }
}

/**
 * The CLI as a user starts it: as a program (its launcher's lines, src/main/hosts/cli/launcher.ts),
 * or under the profiler through Node's command line, with what the launcher would have set.
 */
function launch(cli: string, args: string[]): { file: string; args: string[]; env: Record<string, string> } {
  const profile = profileArgs()
  if (profile.length === 0) return { file: cli, args, env: {} }
  return { file: process.execPath, args: [...profile, cli, ...args], env: { ...ALLOCATOR_ENV } }
}

/**
 * BENCH_SCALE_PROFILE=<folder>: each session writes a V8 CPU profile there (`--cpu-prof`; Node
 * refuses it in NODE_OPTIONS), to open in Chrome's DevTools or read with bench/cpu-profile.ts.
 * BENCH_SCALE_PROFILE_INTERVAL=<µs> samples more often than every 1,000 µs (a step's ~10 ms).
 */
function profileArgs(): string[] {
  const dir = process.env.BENCH_SCALE_PROFILE
  if (!dir) return []
  const interval = process.env.BENCH_SCALE_PROFILE_INTERVAL
  return ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...(interval ? [`--cpu-prof-interval=${interval}`] : [])]
}

/** VmHWM (peak resident size) from /proc, in MB; 0 where there is no /proc or the process is gone. */
function residentMb(pid: number | undefined): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
    return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024
  } catch {
    return 0
  }
}

function seconds(since: number): number {
  return (performance.now() - since) / 1000
}

/** Gaps between consecutive model requests: the cost of each step's tool calls. */
export function stepGaps(t: SessionTiming): number[] {
  return t.requests.slice(1).map((at, i) => at - t.requests[i])
}

/** A turn that calls one tool, then hands back to the model. */
export function callTurn(name: string, args: object, id: string): FakeTurn {
  return { toolCalls: [{ name, arguments: args, id }] }
}
