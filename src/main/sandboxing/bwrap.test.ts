import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { bwrapArgs } from './bwrap'
import { runCommand } from './runner'
import { sandboxStatus } from './sandbox-probe'

/* The sandbox as an attacker tries it, as whoever runs the tests (root here, as in containers and CI). */

const status = sandboxStatus()
if (!status.available) console.warn(`bwrap sandbox tests skipped: ${status.reason}`)

function tempDir(under = os.tmpdir()): string {
  const dir = fs.mkdtempSync(path.join(under, 'stepwise-bwrap-'))
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

const inSandbox = (command: string, cwd: string, network = false) =>
  runCommand({ command, cwd, timeoutMs: 20_000, sandbox: { network } })

/** Runs bwrap with explicit arguments (a fake $HOME), the way the runner does. */
function withArgs(args: string[], command: string): string {
  const run = spawnSync('bwrap', [...args, '--', 'bash', '-c', command], {
    encoding: 'utf8',
    timeout: 20_000,
  })
  return run.stdout + run.stderr
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd, encoding: 'utf8' })

describe('bwrapArgs', () => {
  it('confines with a user namespace, no capabilities and own namespaces, and hides $HOME', () => {
    const home = tempDir()
    const project = path.join(home, 'code', 'app')
    fs.mkdirSync(project, { recursive: true })
    fs.mkdirSync(path.join(home, '.cargo'))
    const args = bwrapArgs({
      root: project,
      network: false,
      home,
      readablePaths: ['~/.m2-missing', '~/.ssh'],
    })
    const joined = args.join(' ')
    for (const flag of ['--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-net'])
      expect(args).toContain(flag)
    expect(joined).toContain('--cap-drop ALL')
    expect(args).toContain('--new-session')
    expect(args).toContain('--die-with-parent')
    expect(joined).toContain('--proc /proc')
    expect(joined).toContain('--tmpfs /tmp')
    expect(joined).toContain('--tmpfs /dev/shm')
    expect(joined).toContain(`--tmpfs ${home}`)
    expect(joined).toContain(`--ro-bind ${home}/.cargo ${home}/.cargo`)
    expect(joined).not.toContain('.m2-missing')
    expect(joined.indexOf(`--tmpfs ${home}`)).toBeLessThan(joined.indexOf(`--bind ${project} ${project}`))
    expect(bwrapArgs({ root: project, network: true, home })).not.toContain('--unshare-net')
  })

  it('never binds a credential folder back, even when the user lists it', () => {
    const home = tempDir()
    fs.mkdirSync(path.join(home, '.ssh'))
    const args = bwrapArgs({ root: tempDir(), network: false, home, readablePaths: ['~/.ssh', '~/.aws'] })
    expect(args.join(' ')).not.toContain(`--ro-bind ${home}/.ssh ${home}/.ssh`)
  })
})

describe('bwrapArgs when the project is $HOME itself', () => {
  it('masks every home credential, since $HOME stays visible', () => {
    const home = tempDir()
    fs.mkdirSync(path.join(home, '.ssh'))
    fs.mkdirSync(path.join(home, '.cargo'))
    fs.writeFileSync(path.join(home, '.cargo/credentials.toml'), 'x')
    fs.writeFileSync(path.join(home, '.netrc'), 'x')
    const joined = bwrapArgs({ root: home, network: false, home }).join(' ')
    expect(joined).not.toContain(`--tmpfs ${home} `)
    for (const secret of ['.ssh', '.cargo/credentials.toml', '.netrc'])
      expect(joined).toMatch(
        new RegExp(`--ro-bind \\S+/empty(\\.d)? ${home}/${secret.replace('.', '\\.')}( |$)`),
      )
  })
})

describe('sandboxStatus', () => {
  it('says what holds, from a real probe, or why not and how to fix it', () => {
    if (!status.available) {
      expect(status.reason).toMatch(/allowUnsandboxed/)
      expect(status.summary).toMatch(/^not sandboxed/)
      return
    }
    expect(status.guarantees).toEqual({
      userNamespace: true,
      capabilitiesDropped: true,
      pidNamespace: true,
      ipcUts: true,
      networkIsolated: true,
      privateTmp: true,
      privateSockets: true,
      secretsMasked: true,
      gitReadOnly: true,
    })
    expect(status.summary).toMatch(/^sandboxed \(bubblewrap\): user namespace, capabilities dropped/)
  })
})

describe.skipIf(!status.available)('inside bwrap', () => {
  it(`cannot undo the confinement (running as uid ${process.getuid?.()})`, async () => {
    const project = tempDir()
    const run = await inSandbox(
      [
        'mount -o remount,rw / 2>/dev/null && echo REMOUNTED',
        'umount /tmp 2>/dev/null && echo UNMOUNTED-TMP',
        'umount /proc 2>/dev/null && echo UNMOUNTED-PROC',
        'mount -t tmpfs none /mnt 2>/dev/null && echo MOUNTED',
        'nsenter --net=/proc/1/ns/net true 2>/dev/null && echo NSENTERED',
        'unshare -m true 2>/dev/null && echo UNSHARED',
        'unshare -Ur true 2>/dev/null && echo NESTED-USERNS',
        "grep -E '^Cap(Eff|Bnd)' /proc/self/status",
        'echo procs=$(ls /proc | grep -c "^[0-9]")',
        'touch /usr/x 2>/dev/null && echo WROTE-USR',
        'echo done',
      ].join('; '),
      project,
    )
    expect(run.output).not.toMatch(/REMOUNTED|UNMOUNTED|MOUNTED|NSENTERED|UNSHARED|NESTED-USERNS|WROTE-USR/)
    expect(run.output).toContain('CapEff:\t0000000000000000')
    expect(run.output).toContain('CapBnd:\t0000000000000000')
    // A fresh /proc in its own pid namespace: bwrap's init, bash, ls, grep — none of the host's.
    expect(Number(/procs=(\d+)/.exec(run.output)![1])).toBeLessThan(8)
    expect(run.output).toContain('done\n')
  })

  it('lets the command write in the project and its /tmp, nowhere else', async () => {
    const project = tempDir()
    const outside = tempDir('/var/tmp')
    const run = await inSandbox(
      `echo in > inside.txt && echo ok-inside; { echo out > ${outside}/outside.txt; } 2>/dev/null || echo refused-outside; echo t > /tmp/own && echo tmp-writable`,
      project,
    )
    expect(run.output).toBe('ok-inside\nrefused-outside\ntmp-writable\n')
    expect(fs.readFileSync(path.join(project, 'inside.txt'), 'utf8')).toBe('in\n')
    expect(fs.existsSync(path.join(outside, 'outside.txt'))).toBe(false)
  })

  it('masks the project’s secret files from cat and grep, and leaves the rest readable', async () => {
    const project = tempDir()
    fs.mkdirSync(path.join(project, 'config/deep'), { recursive: true })
    fs.writeFileSync(path.join(project, '.env'), 'API_KEY=leak1\n')
    fs.writeFileSync(path.join(project, '.env.production'), 'API_KEY=leak2\n')
    fs.writeFileSync(path.join(project, 'config/server.key'), 'leak3')
    fs.writeFileSync(path.join(project, 'config/deep/id_rsa'), 'leak4')
    fs.writeFileSync(path.join(project, '.npmrc'), '//registry/:_authToken=leak5')
    fs.writeFileSync(path.join(project, '.envrc'), 'export API_KEY=leak6\n')
    fs.writeFileSync(path.join(project, 'config/prod.env'), 'API_KEY=leak7\n')
    fs.writeFileSync(path.join(project, 'config/app.json'), '{"API_KEY_NAME": "public"}')
    const run = await inSandbox(
      'cat .env .env.production config/server.key config/deep/id_rsa .npmrc .envrc config/prod.env; grep -r API_KEY . ; ls -a',
      project,
    )
    expect(run.output).not.toMatch(/leak\d/)
    expect(run.output).toContain('"API_KEY_NAME": "public"')
    expect(run.output).toContain('.env.production')
    // Nothing was planted in the project by the masks.
    expect(fs.readFileSync(path.join(project, '.env'), 'utf8')).toBe('API_KEY=leak1\n')
  })

  it('never mounts home credentials, and masks them inside toolchain folders bound back', () => {
    const home = tempDir()
    const project = path.join(home, 'code')
    for (const dir of ['.ssh', '.aws', '.cargo/bin', '.m2', '.config/gcloud', 'code'])
      fs.mkdirSync(path.join(home, dir), { recursive: true })
    fs.writeFileSync(path.join(home, '.ssh/id_ed25519'), 'leak-ssh')
    fs.writeFileSync(path.join(home, '.aws/credentials'), 'leak-aws')
    fs.writeFileSync(path.join(home, '.config/gcloud/token'), 'leak-gcloud')
    fs.writeFileSync(path.join(home, '.cargo/credentials.toml'), 'leak-cargo')
    fs.writeFileSync(path.join(home, '.cargo/bin/tool'), 'cargo-tool')
    fs.writeFileSync(path.join(home, '.m2/settings.xml'), 'leak-m2')
    fs.writeFileSync(path.join(home, '.m2/toolchains.xml'), 'm2-toolchains')
    const args = bwrapArgs({
      root: project,
      network: false,
      home,
      readablePaths: ['~/.config', '~/.ssh'],
      ...status,
    })
    const out = withArgs(
      args,
      `cd ${home} && cat .ssh/id_ed25519 .aws/credentials .config/gcloud/token .cargo/credentials.toml .m2/settings.xml .cargo/bin/tool .m2/toolchains.xml 2>&1; grep -r leak ${home} 2>&1`,
    )
    expect(out).not.toMatch(/leak-/)
    expect(out).toContain('cargo-tool')
    expect(out).toContain('m2-toolchains')
  })

  it('keeps .git read-only (hooks, config) while git status, log, diff and show work', async () => {
    const project = tempDir()
    git(project, 'init', '-q')
    fs.writeFileSync(path.join(project, 'a.txt'), 'one\n')
    git(project, 'add', 'a.txt')
    git(project, 'commit', '-qm', 'first')
    fs.writeFileSync(path.join(project, 'a.txt'), 'two\n')
    const run = await inSandbox(
      [
        '{ echo "#!/bin/sh" > .git/hooks/pre-commit; } 2>/dev/null && echo HOOK-PLANTED',
        'git config core.hooksPath /tmp 2>/dev/null && echo CONFIG-WRITTEN',
        'git status --short',
        'git log --oneline | wc -l',
        'git diff --stat | tail -1',
        'git show --stat HEAD | grep -c first',
      ].join('; '),
      project,
    )
    expect(run.output).not.toMatch(/HOOK-PLANTED|CONFIG-WRITTEN/)
    expect(run.output).toMatch(/ M a.txt\n1\n 1 file changed, 1 insertion\(\+\), 1 deletion\(-\)\n1\n/)
    expect(fs.existsSync(path.join(project, '.git/hooks/pre-commit'))).toBe(false)
  })

  it('keeps a worktree’s .git file and its gitdir read-only', async () => {
    const main = tempDir()
    git(main, 'init', '-q')
    fs.writeFileSync(path.join(main, 'a.txt'), 'one\n')
    git(main, 'add', 'a.txt')
    git(main, 'commit', '-qm', 'first')
    const wt = path.join(tempDir(), 'wt')
    git(main, 'worktree', 'add', '-q', wt)
    // The main checkout lives in the host's /tmp, hidden inside: its gitdir is bound back read-only.
    const gitdir = fs.readFileSync(path.join(wt, '.git'), 'utf8').replace('gitdir:', '').trim()
    const run = await inSandbox(
      `{ echo 'gitdir: /tmp/evil' > .git && echo FILE-WRITTEN; echo x > ${gitdir}/config && echo GITDIR-WRITTEN; touch ${main}/.git/hooks/post-checkout && echo HOOK; } 2>/dev/null; git status --short | wc -l`,
      wt,
    )
    expect(run.output).toBe('0\n')
  })

  describe('host Unix sockets', () => {
    const servers: net.Server[] = []
    const listen = (address: string) =>
      new Promise<void>((resolve, reject) => {
        const server = net.createServer((s) => s.end('host-socket-reached\n'))
        server.on('error', reject)
        server.listen(address, () => resolve())
        servers.push(server)
      })
    const tmpSock = path.join(os.tmpdir(), `stepwise-sock-${process.pid}`)
    let runDir = ''
    let runSock = ''
    let otherDir = ''
    /** True when the "elsewhere" socket sits in a project folder (no folder outside /tmp was writable). */
    let otherIsProject = false
    const abstract = `\0stepwise-abstract-${process.pid}`
    /** A fresh folder in the first parent we may write to. */
    const folderIn = (parents: string[]): string => {
      for (const parent of parents)
        try {
          return fs.mkdtempSync(path.join(parent, 'stepwise-sock-'))
        } catch {
          // not writable for this user: try the next
        }
      return ''
    }
    beforeAll(async () => {
      await listen(tmpSock)
      // /run as root; as a user, their runtime folder under /run (where a desktop keeps its sockets).
      runDir = folderIn(['/run', `/run/user/${process.getuid?.() ?? 0}`])
      if (!runDir)
        throw new Error(
          `no writable folder under /run for the socket case: run as root or create /run/user/${process.getuid?.()} (as .ci/run does)`,
        )
      runSock = path.join(runDir, 'app.sock')
      await listen(runSock)
      // A socket outside the usual folders: found through /proc/net/unix and masked. A user who
      // may write nowhere such gets it inside the project, which the sandbox binds back.
      otherDir = folderIn(['/srv', '/var/lib'])
      if (!otherDir) {
        otherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-sock-project-'))
        otherIsProject = true
      }
      await listen(path.join(otherDir, 'app.sock'))
      await listen(abstract)
    })
    afterAll(async () => {
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))))
      if (runDir) fs.rmSync(runDir, { recursive: true, force: true })
      if (otherDir) fs.rmSync(otherDir, { recursive: true, force: true })
    })
    const probe = (address: string) =>
      `node -e 'const c=require("net").connect(${JSON.stringify(address)});c.on("data",d=>process.stdout.write(d));c.on("error",e=>console.log("refused",e.code))'`

    it('cannot reach a listener in /tmp, /run, elsewhere, or an abstract one', async () => {
      const project = tempDir()
      // The listeners work from the host.
      const direct = await runCommand({ command: probe(tmpSock), cwd: project, timeoutMs: 10_000 })
      expect(direct.output).toBe('host-socket-reached\n')
      const other = path.join(otherDir, 'app.sock')
      for (const address of [tmpSock, runSock, other, abstract]) {
        const run = await inSandbox(probe(address), address === other && otherIsProject ? otherDir : project)
        expect(run.output, address).toMatch(/^refused E/)
      }
    })

    it('with network allowed, file sockets stay unreachable; abstract ones are reachable', async () => {
      const project = tempDir()
      expect((await inSandbox(probe(tmpSock), project, true)).output).toMatch(/^refused E/)
      expect((await inSandbox(probe(abstract), project, true)).output).toBe('host-socket-reached\n')
    })
  })

  it('runs everyday commands and a real npm test that writes in the project and /tmp', async () => {
    const project = tempDir()
    git(project, 'init', '-q')
    fs.writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'tiny', version: '1.0.0', scripts: { test: 'node test.js' } }),
    )
    fs.writeFileSync(
      path.join(project, 'test.js'),
      "const fs=require('fs');fs.writeFileSync('out.txt','ok');fs.writeFileSync(require('os').tmpdir()+'/t','x');if(1+1!==2)process.exit(1);console.log('tiny tests passed')\n",
    )
    fs.writeFileSync(path.join(project, 'data.json'), '{"b":2,"a":1}')
    git(project, 'add', '-A')
    git(project, 'commit', '-qm', 'init')
    const run = await inSandbox(
      [
        'ls | sort | tr "\\n" " "; echo',
        'cat data.json | jq -c .a',
        'grep -c require test.js',
        'rg -c tiny package.json',
        'find . -name "*.js" -not -path "./.git/*" | sort',
        'diff <(echo a) <(echo a) && echo same',
        'npm test --silent',
        'cat out.txt; echo',
        'git status --short',
      ].join(' && '),
      project,
    )
    expect(run.exitCode, run.output).toBe(0)
    expect(run.output).toBe(
      'data.json package.json test.js \n1\n1\n1\n./test.js\nsame\ntiny tests passed\nok\n?? out.txt\n',
    )
  })
})
