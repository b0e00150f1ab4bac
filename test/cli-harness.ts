/**
 * Runs the built `stepwise` CLI for end-to-end tests: plain Node, a clean
 * environment (no model keys or URLs from the developer's shell), stdout and
 * stderr captured.
 */
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export const ROOT = path.resolve(import.meta.dirname, '..')

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Builds the app into its own folder and returns the CLI's path. Each test file
 * gets its own folder: files run in parallel, and rebuilding a folder another file
 * runs the CLI from would swap chunks under its feet. Inside the repo, so the
 * bundle finds node_modules and resources/ above it.
 */
export function buildCli(name: string): string {
  const outDir = path.join(ROOT, 'node_modules', '.cache', name)
  execFileSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'),
      'build',
      '--outDir',
      outDir,
    ],
    { cwd: ROOT, stdio: 'ignore' },
  )
  return path.join(outDir, 'main', 'cli.js')
}

export function runCli(
  cli: string,
  args: string[],
  opts: { env?: Record<string, string>; onSpawn?: (pid: number) => void } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env }
    delete env.OPENAI_API_KEY
    delete env.OPENAI_BASE_URL
    delete env.OLLAMA_HOST
    delete env.OPENAI_MODEL
    delete env.OLLAMA_MODEL
    const child = spawn(process.execPath, [cli, ...args], {
      env: { ...env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('error', reject)
    child.on('spawn', () => opts.onSpawn?.(child.pid!))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** `stepwise edit TASK` over Chat Completions at `baseUrl`, on `repo`, stored in `dataDir`. */
export function editArgs(
  at: { repo: string; dataDir: string; baseUrl: string; model?: string },
  task: string,
  ...extra: string[]
): string[] {
  return [
    'edit',
    task,
    '--repo',
    at.repo,
    '--provider',
    'openai-chat',
    '--model',
    at.model ?? 'm1',
    '--base-url',
    at.baseUrl,
    '--data-dir',
    at.dataDir,
    ...extra,
  ]
}

export const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8' })

/** `git commit ARGS` as a test author, whatever the machine's git identity. */
export const commit = (repo: string, ...args: string[]): string =>
  git(repo, '-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', ...args)

/** A git repo in a new temp folder (its real path) holding `files`, all committed as `init`. */
export function committedRepo(prefix: string, files: Record<string, string>): string {
  const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(repo, name), content)
  git(repo, 'init', '-q')
  git(repo, 'add', '-A')
  commit(repo, '-qm', 'init')
  return repo
}
