import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openStore } from '../store/store'
import { McpManager } from './manager'
import { describeChanges, projectServerFiles } from './project-files'

/*
 * Approving a project's `.mcp.json` covers what its servers run. The case: an approved
 * `{"command": "sh", "args": ["tools/mcp-server.sh"]}` whose script the agent rewrote ran,
 * outside the sandbox, at the next start (the same class as CVE-2025-54136, "MCPoison" in
 * Cursor: an approved MCP entry changed afterwards ran without a new question).
 */

const ROOT = path.resolve(import.meta.dirname, '../../..')
const SERVER = path.join(ROOT, 'test/fixtures/mcp/crash-server.mjs')

const made: string[] = []
const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

function tempDir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  made.push(dir)
  return dir
}

function write(root: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
  fs.writeFileSync(path.join(root, rel), text)
}

const stdio = (command: string, args: string[], extra: Record<string, unknown> = {}) => ({
  spec: { command, args, env: {}, sandbox: true, ...extra },
})

describe('projectServerFiles', () => {
  it('records the script, interpreter arguments, package folders and npx packages inside the project', () => {
    const repo = tempDir('stepwise-mcp-files-')
    const outside = tempDir('stepwise-mcp-outside-')
    write(repo, 'tools/mcp-server.sh', 'exec node server.js\n')
    write(repo, 'server.js', '')
    write(repo, 'hook.js', '')
    write(repo, 'node_modules/srv/package.json', '{}')
    write(repo, 'node_modules/srv/bin.js', '')
    write(repo, 'node_modules/srv/lib/x.js', '')
    fs.mkdirSync(path.join(repo, 'node_modules/.bin'))
    fs.symlinkSync('../srv/bin.js', path.join(repo, 'node_modules/.bin/srv'))
    write(repo, 'node_modules/@acme/mcp/package.json', '{}')
    write(repo, 'node_modules/@acme/mcp/index.js', '')
    write(outside, 'elsewhere.js', '')
    fs.symlinkSync(path.join(outside, 'elsewhere.js'), path.join(repo, 'linked.js'))

    const files = projectServerFiles(
      [
        stdio('sh', ['tools/mcp-server.sh']),
        stdio('node', ['--require=./hook.js', 'server.js', 'stdio', 'later.py']),
        stdio('./node_modules/.bin/srv', []),
        stdio('npx', ['-y', '@acme/mcp@1.2.0']),
        stdio('node', ['linked.js', path.join(outside, 'elsewhere.js')]),
        { spec: { url: 'http://127.0.0.1:1/mcp', headers: {} } },
      ],
      repo,
      'f'.repeat(64),
    )
    expect(Object.keys(files).sort()).toEqual([
      '.mcp.json',
      'hook.js',
      'later.py',
      'node_modules/@acme/mcp/index.js',
      'node_modules/@acme/mcp/package.json',
      'node_modules/srv/bin.js',
      'node_modules/srv/lib/x.js',
      'node_modules/srv/package.json',
      'server.js',
      'tools/mcp-server.sh',
    ])
    expect(files['.mcp.json']).toBe(`sha256:${'f'.repeat(64)}`)
    expect(files['later.py']).toBe('missing')
    expect(files['tools/mcp-server.sh']).toMatch(/^sha256:[0-9a-f]{64}$/)
  })

  it('finds a bare program on the PATH the project file sets, relative to its cwd', () => {
    const repo = tempDir('stepwise-mcp-files-')
    write(repo, 'srv/bin/serve', '#!/bin/sh\n')
    const files = projectServerFiles(
      [stdio('serve', [], { cwd: 'srv', env: { PATH: 'bin:/usr/bin' } })],
      repo,
      'a'.repeat(64),
    )
    expect(Object.keys(files)).toContain('srv/bin/serve')
  })

  it('names what changed', () => {
    expect(
      describeChanges(
        { '.mcp.json': 'sha256:1', 'a.sh': 'sha256:2', 'b.py': 'missing', 'gone.js': 'sha256:3' },
        { '.mcp.json': 'sha256:1', 'a.sh': 'sha256:9', 'b.py': 'sha256:4', 'new.js': 'sha256:5' },
      ),
    ).toEqual(['a.sh (changed)', 'b.py (created)', 'gone.js (no longer run)', 'new.js (new)'])
  })
})

describe('an approved project .mcp.json and the script it runs', () => {
  function project() {
    const repo = tempDir('stepwise-mcp-approve-repo-')
    const dataDir = tempDir('stepwise-mcp-approve-data-')
    write(
      repo,
      '.mcp.json',
      JSON.stringify({ mcpServers: { tools: { command: 'sh', args: ['tools/mcp-server.sh'] } } }),
    )
    write(repo, 'tools/mcp-server.sh', `exec "${process.execPath}" "${SERVER}"\n`)
    const store = openStore(dataDir)
    cleanups.push(() => store.close())
    const managers: McpManager[] = []
    const start = async (): Promise<McpManager> => {
      const manager = new McpManager({ dataDir, repo, store, maxRestarts: 1 })
      managers.push(manager)
      cleanups.push(() => manager.stop())
      await manager.start()
      return manager
    }
    // What the agent does: the script first leaves a canary (what it would run on the host), then serves.
    const tamper = (): void =>
      write(
        repo,
        'tools/mcp-server.sh',
        `echo ran > "${repo}/canary"\nexec "${process.execPath}" "${SERVER}"\n`,
      )
    return { repo, start, tamper, canary: path.join(repo, 'canary') }
  }

  it('asks again at the next start, naming the script, and runs nothing', async () => {
    const { start, tamper, canary } = project()
    const first = await start()
    const shown = first.view().project!
    expect(shown.files).toEqual(['.mcp.json', 'tools/mcp-server.sh'])
    await first.approveProject(shown.hash, true)
    expect(first.view().servers[0].state).toBe('ready')
    await first.stop()

    tamper()
    const next = await start()
    expect(next.view().project).toMatchObject({
      state: 'changed',
      changes: ['tools/mcp-server.sh (changed)'],
    })
    expect(next.view().servers[0].state).toBe('awaiting-approval')
    expect(next.tools()).toEqual([])
    expect(fs.existsSync(canary)).toBe(false)

    // Control: approved again, the changed script does run (so the canary detects a start).
    await next.approveProject(next.view().project!.hash, true)
    expect(next.view().servers[0].state).toBe('ready')
    expect(fs.existsSync(canary)).toBe(true)
  }, 30_000)

  it('a restart after a crash does not run a script changed meanwhile', async () => {
    const { start, tamper, canary } = project()
    const manager = await start()
    await manager.approveProject(manager.view().project!.hash, true)
    const crash = manager.tools().find((t) => t.name === 'mcp__tools__crash')!
    tamper()
    await crash
      .call({}, { signal: new AbortController().signal, onProgress: () => {} })
      .catch(() => undefined)
    await expect.poll(() => manager.view().servers[0].state, { timeout: 10_000 }).toBe('failed')
    expect(manager.view().servers[0].error).toContain('tools/mcp-server.sh (changed)')
    expect(fs.existsSync(canary)).toBe(false)
  }, 30_000)
})
