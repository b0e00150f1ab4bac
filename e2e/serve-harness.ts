import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  startFakeModelServer,
  type FakeModelServer,
  type FakeModelServerOptions,
} from '../test/fake-model-server'

/**
 * Runs the real `stepwise serve` (the built CLI on plain Node) against a real git
 * project in a temp folder and the fake model server on 127.0.0.1 — the only fake
 * part is the remote model. The URL with its token is the first line it prints.
 */

export const repoRoot = fileURLToPath(new URL('..', import.meta.url))
// `STEPWISE_OUT_DIR`: a build of one's own (as for scripts/start.mjs), so a run never swaps out/ under others.
export const cli = join(repoRoot, process.env.STEPWISE_OUT_DIR ?? 'out', 'main', 'cli.js')

export interface ServeHarness {
  url: string
  origin: string
  repo: string
  dataDir: string
  model: FakeModelServer
  stderr(): string
  /** Stops the server (as Ctrl+C does) and waits for it to exit; the data stays. */
  stop(): Promise<void>
  /** Starts `stepwise serve` again on the same data (a reopened app). */
  restart(): Promise<void>
  close(): Promise<void>
}

export function gitProject(files: Record<string, string>): string {
  const repo = realpathSync(mkdtempSync(join(tmpdir(), 'stepwise-e2e-repo-')))
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, name)), { recursive: true })
    writeFileSync(join(repo, name), text)
  }
  const git = (...args: string[]) => spawnSync('git', args, { cwd: repo, encoding: 'utf8' })
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('-c', 'user.name=e2e', '-c', 'user.email=e2e@example.com', 'commit', '-qm', 'initial')
  return repo
}

export async function startServe(opts: {
  files: Record<string, string>
  model?: FakeModelServerOptions
  approve?: string
  repoFlag?: boolean
  /** An OpenAI-compatible server (the fake's /v1) instead of Ollama; `model` names the model. */
  compatible?: { model: string }
  /** More flags for `stepwise serve` (`--first-token-timeout 2`). */
  args?: string[]
}): Promise<ServeHarness> {
  if (!existsSync(cli))
    throw new Error('out/main/cli.js is missing: run `npm run build` first (npm test does).')
  const repo = gitProject(opts.files)
  const dataDir = mkdtempSync(join(tmpdir(), 'stepwise-e2e-data-'))
  const model = await startFakeModelServer({ models: ['coder:1b'], ...opts.model })
  let child: ChildProcess
  let err = ''
  let url = ''
  const launch = () =>
    new Promise<void>((resolve, reject) => {
      const args = [cli, 'serve', '--data-dir', dataDir]
      if (opts.compatible)
        args.push('--provider', 'openai-chat', '--model', opts.compatible.model, '--base-url', model.v1Url)
      else args.push('--provider', 'ollama', '--model', 'coder:1b', '--base-url', model.url)
      args.push('--approve', opts.approve ?? 'ask')
      if (opts.repoFlag !== false) args.push('--repo', repo)
      if (url) args.push('--port', new URL(url).port)
      for (const arg of opts.args ?? []) args.push(arg)
      child = spawn(process.execPath, args, { env: { ...process.env, OPENAI_API_KEY: '' } })
      let out = ''
      const timer = setTimeout(
        () => reject(new Error(`stepwise serve printed no URL in 10 s:\n${err}`)),
        10_000,
      )
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString()
        const line = out.split('\n')[0]
        if (out.includes('\n') && line.startsWith('http')) {
          clearTimeout(timer)
          url = line.trim()
          resolve()
        }
      })
      child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
      child.on('exit', (code) => {
        clearTimeout(timer)
        if (!url) reject(new Error(`stepwise serve exited with ${code}:\n${err}`))
      })
    })
  const stop = async () => {
    if (child.exitCode !== null) return
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGINT')
    await exited
  }
  await launch()
  return {
    get url() {
      return url
    },
    get origin() {
      return new URL(url).origin
    },
    repo,
    dataDir,
    model,
    stderr: () => err,
    stop,
    restart: launch,
    async close() {
      await stop()
      await model.close()
      rmSync(repo, { recursive: true, force: true })
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
