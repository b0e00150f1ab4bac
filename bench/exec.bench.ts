import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { sandboxStatus } from '../src/main/sandboxing/sandbox-probe'
import { runCommand } from '../src/main/sandboxing/runner'
import { MB, gc, isMain, log, median, memory, report, type BenchRow } from './util'

/*
 * Commands (issue 6): what the bwrap sandbox adds to each command (`true` run
 * 100 times through the runner, sandboxed vs direct), and a 100 MB print through
 * the capped pipe — throughput against the same `cat` piped into Node and dropped, and
 * how much the process's memory grows meanwhile.
 */

const RUNS = 100
const PRINT_BYTES = 100 * 1000 * 1000

async function perCommandMs(root: string, sandboxed: boolean): Promise<number[]> {
  const times: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now()
    const run = await runCommand({
      command: 'true',
      cwd: root,
      timeoutMs: 30_000,
      sandbox: sandboxed ? { network: false } : null,
    })
    times.push(performance.now() - start)
    if (run.exitCode !== 0)
      throw new Error(`\`true\` exited ${run.exitCode}: ${run.output || run.spawnError}`)
  }
  return times
}

/** The reference: the same `cat` through a pipe into Node, every chunk dropped on arrival. */
function pipeAndDiscard(file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now()
    const child = spawn('cat', [file], { stdio: ['ignore', 'pipe', 'ignore'] })
    child.stdout.on('data', () => {})
    child.on('error', reject)
    child.on('close', (code) =>
      code === 0 ? resolve((performance.now() - start) / 1000) : reject(new Error(`cat exited ${code}`)),
    )
  })
}

export async function benchExec(): Promise<BenchRow[]> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-bench-exec-'))
  const rows: BenchRow[] = []
  try {
    const status = sandboxStatus()
    await perCommandMs(root, false)
    const direct = median(await perCommandMs(root, false))
    log(`direct: median ${direct.toFixed(2)} ms per \`true\` over ${RUNS} runs`)
    if (status.available) {
      await perCommandMs(root, true)
      const boxed = median(await perCommandMs(root, true))
      log(`bwrap:  median ${boxed.toFixed(2)} ms per \`true\` over ${RUNS} runs`)
      rows.push({
        name: 'exec: sandbox overhead per command',
        unit: 'ms',
        ours: boxed - direct,
        refName: 'direct run',
        reference: direct,
        target: { maxAbs: 30 },
        note: `extra ms of bwrap per command (median of ${RUNS} \`true\` each way: ${boxed.toFixed(1)} vs ${direct.toFixed(1)} ms)`,
      })
    } else {
      rows.push({
        name: 'exec: sandbox overhead per command',
        unit: 'ms',
        ours: NaN,
        error: `no sandbox: ${status.reason}`,
      })
    }

    const file = path.join(root, 'print.bin')
    fs.writeFileSync(file, Buffer.alloc(PRINT_BYTES, 'x'))
    await pipeAndDiscard(file)
    const reference = await pipeAndDiscard(file)
    gc()
    const before = memory()
    let peakRss = before.rss
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 5)
    const start = performance.now()
    const run = await runCommand({ command: `cat ${file}`, cwd: root, timeoutMs: 120_000 })
    const seconds = (performance.now() - start) / 1000
    clearInterval(sampler)
    peakRss = Math.max(peakRss, process.memoryUsage().rss)
    if (run.totalBytes !== PRINT_BYTES) throw new Error(`captured ${run.totalBytes} of ${PRINT_BYTES} bytes`)
    const growth = (peakRss - before.rss) / MB
    const mbps = PRINT_BYTES / MB / seconds
    log(
      `100 MB print: ${seconds.toFixed(2)} s (${mbps.toFixed(0)} MB/s), kept ${run.output.length} chars, peak RSS +${growth.toFixed(1)} MB`,
    )
    rows.push(
      {
        name: 'exec: 100 MB print through the capped pipe',
        unit: 's',
        ours: seconds,
        refName: 'cat piped to Node, discarded',
        reference,
        note: `${mbps.toFixed(0)} MB/s, decoded and capped (head + tail ${run.output.length} chars kept)`,
      },
      {
        name: 'exec: peak RSS growth during the 100 MB print',
        unit: 'MB',
        ours: growth,
        target: { maxAbs: 50 },
        note: 'sampled every 5 ms against the RSS before the run',
      },
    )
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
  return rows
}

if (isMain(import.meta)) report('commands: sandbox overhead and output throughput', await benchExec())
