import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { bwrapArgs, sandboxStatus } from './bwrap'
import { runCommand } from './runner'

const status = sandboxStatus()
if (!status.available) console.warn(`bwrap sandbox tests skipped: ${status.reason}`)

function tempDir(under = os.tmpdir()): string {
  const dir = fs.mkdtempSync(path.join(under, 'stepwise-bwrap-'))
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

const inSandbox = (command: string, cwd: string, network = false) =>
  runCommand({ command, cwd, timeoutMs: 20_000, sandbox: { network } })

describe('sandboxStatus', () => {
  it('says whether bwrap works, and why not', () => {
    expect(typeof status.available).toBe('boolean')
    if (!status.available) expect(status.reason).toMatch(/bwrap|bubblewrap|Linux/)
  })

  it('builds arguments that hide $HOME and bind the project back', () => {
    const home = tempDir()
    const project = path.join(home, 'code', 'app')
    fs.mkdirSync(project, { recursive: true })
    fs.mkdirSync(path.join(home, '.cargo'))
    const args = bwrapArgs({ root: project, network: false, home, readablePaths: ['~/.m2-missing'] })
    const joined = args.join(' ')
    expect(joined).toContain(`--tmpfs ${home}`)
    expect(joined).toContain(`--ro-bind ${home}/.cargo ${home}/.cargo`)
    expect(joined).not.toContain('.m2-missing')
    expect(joined.indexOf(`--tmpfs ${home}`)).toBeLessThan(joined.indexOf(`--bind ${project} ${project}`))
    expect(args).toContain('--unshare-net')
    expect(bwrapArgs({ root: project, network: true, home })).not.toContain('--unshare-net')
  })
})

describe.skipIf(!status.available)('inside bwrap', () => {
  let server: net.Server
  let port = 0
  beforeAll(async () => {
    server = net.createServer((socket) => socket.end('hello from the host\n'))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as net.AddressInfo).port
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('lets the command write in the project and nowhere else', async () => {
    const project = tempDir()
    const outside = tempDir('/var/tmp')
    const run = await inSandbox(
      `echo in > inside.txt && echo ok-inside; echo out > ${outside}/outside.txt || echo refused-outside; touch /usr/x 2>/dev/null || echo refused-usr`,
      project,
    )
    expect(run.output).toContain('ok-inside\n')
    expect(run.output).toContain('refused-outside\n')
    expect(run.output).toContain('refused-usr\n')
    expect(fs.readFileSync(path.join(project, 'inside.txt'), 'utf8')).toBe('in\n')
    expect(fs.existsSync(path.join(outside, 'outside.txt'))).toBe(false)
  })

  it('gives the command a private /tmp and hides $HOME', async () => {
    const project = tempDir()
    const marker = path.join(os.tmpdir(), `stepwise-marker-${process.pid}`)
    fs.writeFileSync(marker, 'x')
    onTestFinished(() => fs.rmSync(marker, { force: true }))
    const home = os.homedir()
    const secret = fs.mkdtempSync(path.join(home, '.stepwise-secret-'))
    onTestFinished(() => fs.rmSync(secret, { recursive: true, force: true }))
    const run = await inSandbox(
      `test -e ${marker} && echo tmp-visible || echo tmp-private; test -e ${secret} && echo home-visible || echo home-hidden; echo tmp > /tmp/own && echo tmp-writable`,
      project,
    )
    expect(run.output).toBe('tmp-private\nhome-hidden\ntmp-writable\n')
  })

  it('keeps the project visible when it lives under $HOME', async () => {
    const project = fs.mkdtempSync(path.join(os.homedir(), '.stepwise-project-'))
    onTestFinished(() => fs.rmSync(project, { recursive: true, force: true }))
    fs.writeFileSync(path.join(project, 'a.txt'), 'A')
    const run = await inSandbox('cat a.txt && echo B > b.txt && pwd', project)
    expect(run.output).toBe(`A${project}\n`)
    expect(fs.readFileSync(path.join(project, 'b.txt'), 'utf8')).toBe('B\n')
  })

  it('has no network, loopback included, unless allowed', async () => {
    const project = tempDir()
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3 || echo no-network`
    expect((await runCommand({ command: probe, cwd: project, timeoutMs: 10_000 })).output).toBe(
      'hello from the host\n',
    )
    expect((await inSandbox(probe, project)).output).toContain('no-network\n')
    expect((await inSandbox(probe, project, true)).output).toBe('hello from the host\n')
  })
})
