import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { bwrapArgs } from '../src/main/sandboxing/bwrap'
import { sandboxStatus } from '../src/main/sandboxing/sandbox-probe'
import { Redactor, envSecrets, secretFileValues } from '../src/main/sandboxing/redact'
import { findProjectSecrets } from '../src/main/containment/project-secrets'
import { lastRefresh, refreshProjectSecrets } from '../src/main/sandboxing/secrets-mask'
import { ensureTree } from './tree'
import { isMain, log, median, report, type BenchRow } from './util'

/*
 * The hardened command sandbox's cost per command: `sh -c true` spawned bare,
 * through the previous bwrap invocation (reconstructed below as the reference),
 * and through today's (`bwrapArgs`: user namespace, capabilities dropped, private
 * socket folders, secrets masked, `.git` read-only) — arguments built per
 * command, as the runner does, so the secret scan is included. Once on a small
 * project, once on the 50,000-file bench tree, whose scan is also timed alone.
 */

const RUNS = 100

/** The bwrap arguments before the hardening, for the same project and $HOME. */
function previousArgs(root: string): string[] {
  const home = os.homedir()
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp']
  args.push('--unshare-pid', '--die-with-parent')
  if (fs.existsSync(home) && !root.startsWith(home + path.sep)) args.push('--tmpfs', home)
  for (const dir of ['.cargo', '.rustup', 'go', '.m2', '.nvm', '.local/bin'].map((d) => path.join(home, d)))
    if (fs.existsSync(dir)) args.push('--ro-bind', dir, dir)
  if (fs.existsSync('/run/user')) args.push('--tmpfs', '/run/user')
  args.push('--bind', root, root, '--unshare-net', '--setenv', 'TMPDIR', '/tmp', '--chdir', root)
  return args
}

function spawnOnce(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: 'ignore' })
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited ${code}`))))
  })
}

/**
 * Median ms per run of `sh -c true` for each way of starting it, interleaved run
 * by run so the machine's load weighs on all of them alike. Each `argv()` is
 * called per run: arguments are built per command, as the runner does.
 */
async function perRun(ways: (() => [string, string[]] | Promise<[string, string[]]>)[]): Promise<number[]> {
  const times = ways.map(() => [] as number[])
  for (let i = 0; i < RUNS + 5; i++) {
    for (const [w, argv] of ways.entries()) {
      const start = performance.now()
      const [file, args] = await argv()
      await spawnOnce(file, args)
      if (i >= 5) times[w].push(performance.now() - start)
    }
  }
  return times.map(median)
}

export async function benchSandbox(): Promise<BenchRow[]> {
  const status = sandboxStatus()
  if (!status.available)
    return [
      {
        name: 'sandbox: hardened bwrap per command',
        unit: 'ms',
        ours: NaN,
        error: `no sandbox: ${status.reason}`,
      },
    ]
  const flags = { userns: status.userns, disableNestedUserns: status.disableNestedUserns }
  const small = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-bench-sandbox-'))
  try {
    fs.mkdirSync(path.join(small, 'src'))
    fs.mkdirSync(path.join(small, '.git'))
    fs.writeFileSync(path.join(small, '.env'), 'KEY=x\n')
    const tree = ensureTree()
    const files = tree.files.toLocaleString('en-US')
    // The first scan of a tree reads every folder; later ones only stat them (timed below).
    const firstStart = performance.now()
    findProjectSecrets(tree.root)
    const first = performance.now() - firstStart
    const scans: number[] = []
    let found = findProjectSecrets(tree.root)
    for (let i = 0; i < 30; i++) {
      const start = performance.now()
      found = findProjectSecrets(tree.root)
      scans.push(performance.now() - start)
    }
    const scan = median(scans)

    // As the runner does: one look at the tree (the inotify tracker vouching for unchanged folders) per command.
    const hardenedOn = (root: string) => async (): Promise<[string, string[]]> => {
      const project = await refreshProjectSecrets(root)
      return ['bwrap', [...bwrapArgs({ root, network: false, ...flags, project }), '--', 'sh', '-c', 'true']]
    }
    const tracked: number[] = []
    for (let i = 0; i < 30; i++) {
      const start = performance.now()
      await refreshProjectSecrets(tree.root)
      tracked.push(performance.now() - start)
    }
    const trackedScan = median(tracked.slice(5))
    const trackedInfo = lastRefresh.get(path.resolve(tree.root))
    // Redaction of 1 MB of output: the project's .env values and the process's secret variables.
    const redactor = new Redactor([
      ...secretFileValues(found.secrets),
      ...envSecrets({
        ...process.env,
        BENCH_API_KEY: 'bench-secret-value-1234',
        BENCH_TOKEN: 'tok-0987654321',
      }),
      { name: 'BENCH_SECRET', value: 'xyz-bench-9999' },
    ])
    const line = 'src/module/file.ts:42: some ordinary compiler output, nothing secret here at all\n'
    const mb = line.repeat(Math.ceil((1024 * 1024) / line.length)) + 'tail bench-secret-value-1234\n'
    const redactTimes: number[] = []
    let redacted = ''
    for (let i = 0; i < 20; i++) {
      const start = performance.now()
      redacted = redactor.redact(mb)
      redactTimes.push(performance.now() - start)
    }
    const redactMs = median(redactTimes)
    if (!redacted.includes('[REDACTED:BENCH_API_KEY]'))
      throw new Error('redaction bench: the value was not replaced')
    const [bare, previous, hardened, big] = await perRun([
      () => ['sh', ['-c', 'true']],
      () => ['bwrap', [...previousArgs(small), '--', 'sh', '-c', 'true']],
      hardenedOn(small),
      hardenedOn(tree.root),
    ])
    log(
      `median ms per \`sh -c true\`: bare ${bare.toFixed(1)}, previous bwrap ${previous.toFixed(1)}, hardened ${hardened.toFixed(1)} (small project), ${big.toFixed(1)} (${files} files)`,
    )
    log(
      `tracked look at ${files} files: ${trackedScan.toFixed(2)} ms (${trackedInfo?.statted} folders statted, tracker ${trackedInfo?.tracked ? 'trusted' : 'not trusted'}); redaction of 1 MB: ${redactMs.toFixed(2)} ms`,
    )
    log(
      `secret scan of ${files} files: first ${first.toFixed(0)} ms, then ${scan.toFixed(1)} ms (${found.entries} entries, ${found.secrets.length} secrets, walk stopped: ${found.truncatedAt !== undefined})`,
    )
    return [
      {
        name: 'sandbox: hardened bwrap, extra per command',
        unit: 'ms',
        ours: hardened - bare,
        refName: 'bare `sh -c true`',
        reference: bare,
        target: { maxAbs: 30 },
        note: `small project, median of ${RUNS}: hardened ${hardened.toFixed(1)} ms, previous bwrap ${previous.toFixed(1)} ms, bare ${bare.toFixed(1)} ms`,
      },
      {
        name: 'sandbox: hardened vs previous bwrap',
        unit: 'ms',
        ours: hardened,
        refName: 'previous bwrap arguments',
        reference: previous,
        note: `${(hardened - previous).toFixed(1)} ms more per command: user namespace, capabilities dropped, private socket folders, masks`,
      },
      {
        name: `sandbox: secret scan, ${files} files, tracked (again)`,
        unit: 'ms',
        ours: trackedScan,
        refName: 'stat walk',
        reference: scan,
        target: { maxAbs: 30 },
        note: `inotify tracker trusted: ${trackedInfo?.tracked}, ${trackedInfo?.statted} folders statted`,
      },
      {
        name: 'exec: redaction of 1 MB of output',
        unit: 'ms',
        ours: redactMs,
        target: { maxAbs: 30 },
        note: `one combined expression over ${redactor.maxLength ? 'every' : 'no'} secret value (project .env files, process variables)`,
      },
      {
        name: `sandbox: secret scan, ${files} files, stat walk (again)`,
        unit: 'ms',
        ours: scan,
        note: `the fallback where the tracker cannot vouch; ${found.entries.toLocaleString('en-US')} entries (node_modules and .git skipped), ${found.secrets.length} secrets; the first scan took ${first.toFixed(0)} ms`,
      },
      {
        name: `sandbox: extra per command, ${files} files`,
        unit: 'ms',
        ours: big - bare,
        refName: 'bare `sh -c true`',
        reference: bare,
        target: { maxAbs: 30 },
        note: `tracked look and ${found.secrets.length} masks included; median of ${RUNS}`,
      },
    ]
  } finally {
    fs.rmSync(small, { recursive: true, force: true })
  }
}

if (isMain(import.meta)) report('sandbox: cost of the hardened command sandbox', await benchSandbox())
