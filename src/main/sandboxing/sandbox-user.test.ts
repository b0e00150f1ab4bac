import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'

/*
 * The same confinement when Stepwise runs as an ordinary user: a real user
 * (created when absent and this runs as root) runs the real runner.
 *
 * The checkout may sit where that user cannot enter (a clone under root's home or a
 * mode-700 `mktemp -d` folder, as CI clones it), so the user never runs anything from
 * it: the runner is bundled, with tsx's own esbuild, into one plain JavaScript file in
 * a fresh temp folder the user owns, and runs there on this same node binary.
 */

const USER = 'stepwise-test'
const here = path.dirname(new URL(import.meta.url).pathname)
const root = path.resolve(here, '../../..')

/** Why the test cannot switch to an ordinary user here, or undefined when it can. */
function cannotSwitch(): string | undefined {
  if (process.platform !== 'linux') return `needs Linux (this is ${process.platform})`
  if (process.getuid?.() !== 0) return 'needs root to switch to another user (this run is not root)'
  if (spawnSync('id', [USER]).status !== 0) {
    const add = spawnSync('useradd', ['-m', USER], { encoding: 'utf8' })
    if (add.status !== 0)
      return `cannot create user ${USER}: ${(add.stderr || add.error?.message || '').trim()}`
  }
  const probe = spawnSync('runuser', ['-u', USER, '--', 'true'], { encoding: 'utf8' })
  if (probe.status !== 0)
    return `cannot switch to ${USER} with runuser: ${(probe.stderr || probe.error?.message || '').trim()}`
  // The bundle needs nothing from the checkout, but it needs a node the user may run and a
  // temp folder the user may enter: only where neither exists is there no way to run it.
  if (spawnSync('runuser', ['-u', USER, '--', 'test', '-x', process.execPath]).status !== 0)
    return `${USER} cannot execute this node (${process.execPath}): install node where every user can run it`
  if (spawnSync('runuser', ['-u', USER, '--', 'test', '-x', os.tmpdir()]).status !== 0)
    return `${USER} cannot enter the temp folder ${os.tmpdir()}: set TMPDIR to a folder every user can enter`
  return undefined
}

/** The runner and the probe as one self-contained ES module, written to `file`. */
async function bundleRunner(file: string): Promise<void> {
  // tsx pins its esbuild: resolving it through tsx bundles with the compiler the suite already runs on.
  const esbuild = createRequire(path.join(root, 'node_modules/tsx/package.json'))(
    'esbuild',
  ) as typeof import('esbuild')
  await esbuild.build({
    stdin: {
      contents: "export { runCommand } from './runner'\nexport { sandboxStatus } from './sandbox-probe'\n",
      resolveDir: here,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: file,
    logLevel: 'error',
  })
}

const why = cannotSwitch()
if (why) console.warn(`unprivileged sandbox test skipped: ${why}`)

describe.skipIf(why !== undefined)(`the sandbox as the ordinary user ${USER}`, () => {
  it('holds the same: no capabilities, no mounts, secrets masked, .git read-only, the project writable', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-user-'))
    onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }))
    const project = path.join(dir, 'project')
    fs.mkdirSync(path.join(project, '.git'), { recursive: true })
    fs.writeFileSync(path.join(project, '.env'), 'KEY=leak-user\n')
    await bundleRunner(path.join(dir, 'runner.mjs'))
    const script = path.join(dir, 'run.mjs')
    fs.writeFileSync(
      script,
      `import { runCommand, sandboxStatus } from './runner.mjs'
const status = sandboxStatus()
const run = await runCommand({
  command: ${JSON.stringify(
    [
      'id -u',
      "grep -E '^Cap(Eff|Bnd)' /proc/self/status",
      'mount -t tmpfs none /mnt 2>/dev/null && echo MOUNTED',
      'umount /tmp 2>/dev/null && echo UNMOUNTED',
      'unshare -Ur true 2>/dev/null && echo NESTED-USERNS',
      'cat .env',
      '{ touch .git/hooks-planted; } 2>/dev/null && echo GIT-WRITTEN',
      'echo ok > made.txt && cat made.txt',
    ].join('; '),
  )},
  cwd: ${JSON.stringify(project)},
  timeoutMs: 20_000,
  sandbox: { network: false },
  env: { ...process.env, LITELLM_MASTER_KEY: 'leak-env' },
})
console.log(JSON.stringify({ status, run }))
`,
    )
    execFileSync('chown', ['-R', `${USER}:${USER}`, dir])
    const out = execFileSync('runuser', ['-u', USER, '--', process.execPath, script], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: `/home/${USER}` },
    })
    const { status, run } = JSON.parse(out.trim().split('\n').pop()!)
    expect(status.available, status.reason).toBe(true)
    expect(status.guarantees.userNamespace && status.guarantees.capabilitiesDropped).toBe(true)
    expect(run.sandboxed).toBe(true)
    const uid = execFileSync('id', ['-u', USER], { encoding: 'utf8' }).trim()
    expect(run.output).toBe(`${uid}\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nok\n`)
    expect(fs.readFileSync(path.join(project, 'made.txt'), 'utf8')).toBe('ok\n')
  })
})
