import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { CommandInput, CommandOutput } from '../../shared/protocol'
import { sandboxStatus } from '../sandboxing/sandbox-probe'
import { createSandbox } from '../containment/sandbox'
import { projectRootWarning } from '../containment/gate'
import { hiddenByHost } from '../containment/project-secrets'
import { indexFor } from '../session/code-context'
import { safeGitRaw } from '../git/git-safe'
import { VERSION } from '../version'
import type { ServiceContext } from './context'
import { resolveProjectDir } from './sessions'
import { readSettings } from './settings'

/** Projects, folders and the code index, for the app's project view and `@` mentions. */

const RECENT_KEY = 'recentProjects'
const MAX_RECENT = 12
/** Files offered for `@` mentions: enough for a big repo, bounded for the wire. */
const MAX_MENTION_FILES = 20_000

function recentProjects(ctx: ServiceContext): string[] {
  try {
    const list = JSON.parse(ctx.store.getSetting(RECENT_KEY) ?? '[]') as unknown
    return Array.isArray(list) ? list.filter((p): p is string => typeof p === 'string') : []
  } catch {
    return []
  }
}

export function appInfo(ctx: ServiceContext, canPickFolder: boolean): CommandOutput<'app/info'> {
  const sandbox = sandboxStatus()
  return {
    version: VERSION,
    host: ctx.host,
    dataDir: ctx.dataDir,
    sandbox: { available: sandbox.available, reason: sandbox.reason, summary: sandbox.summary },
    defaults: {
      ...ctx.defaults,
      approvalPolicy: ctx.defaults.approvalPolicy ?? readSettings(ctx.store).approvalPolicy,
    },
    recentProjects: recentProjects(ctx).filter((p) => fs.existsSync(p)),
    startProject: ctx.startProject ?? null,
    notices: ctx.startupNotices,
    canPickFolder,
    keyStorage: ctx.keys.storage,
  }
}

export async function openProject(
  ctx: ServiceContext,
  input: CommandInput<'project/open'>,
): Promise<CommandOutput<'project/open'>> {
  const repo = resolveProjectDir(input.repo)
  const recent = [repo, ...recentProjects(ctx).filter((p) => p !== repo)].slice(0, MAX_RECENT)
  ctx.store.setSetting(RECENT_KEY, JSON.stringify(recent))
  let branch: string | null
  try {
    branch = (await safeGitRaw(repo, ['rev-parse', '--abbrev-ref', 'HEAD'], { timeoutMs: 5000 })).trim()
    if (branch === 'HEAD') branch = '(detached)'
  } catch {
    branch = null // not a repository, or one with no commit yet
  }
  const warning = projectRootWarning(realpathOr(repo), os.homedir(), [ctx.dataDir, ...hiddenByHost()])
  return { repo, name: path.basename(repo), branch, ...(warning ? { warning } : {}) }
}

function realpathOr(p: string): string {
  try {
    return fs.realpathSync.native(p)
  } catch {
    return path.resolve(p)
  }
}

export async function projectFiles(
  input: CommandInput<'project/files'>,
): Promise<CommandOutput<'project/files'>> {
  const sandbox = await createSandbox(resolveProjectDir(input.repo))
  const listed = await sandbox.listFiles({ limit: MAX_MENTION_FILES })
  return { files: listed.files, truncated: listed.truncated }
}

/** Folders whose path starts with what the user typed (`~` is home), for the open-folder field. */
export function completeFolder(input: CommandInput<'fs/complete'>): CommandOutput<'fs/complete'> {
  const typed = input.path.startsWith('~') ? path.join(os.homedir(), input.path.slice(1)) : input.path
  if (!path.isAbsolute(typed)) return { entries: [] }
  const dir = typed.endsWith(path.sep) ? typed : path.dirname(typed)
  const prefix = typed.endsWith(path.sep) ? '' : path.basename(typed)
  let names: fs.Dirent[]
  try {
    names = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return { entries: [] }
  }
  const entries = names
    .filter(
      (d) =>
        d.isDirectory() && d.name.startsWith(prefix) && (prefix.startsWith('.') || !d.name.startsWith('.')),
    )
    .map((d) => path.join(dir, d.name))
    .sort()
    .slice(0, 50)
  return { entries }
}

export async function indexStatus(
  ctx: ServiceContext,
  input: CommandInput<'index/status'>,
): Promise<CommandOutput<'index/status'>> {
  const sandbox = await createSandbox(resolveProjectDir(input.repo))
  return { status: indexFor(ctx.store, sandbox).status() }
}

export async function rebuildIndex(
  ctx: ServiceContext,
  input: CommandInput<'index/rebuild'>,
): Promise<CommandOutput<'index/rebuild'>> {
  const sandbox = await createSandbox(resolveProjectDir(input.repo))
  const report = await indexFor(ctx.store, sandbox).build()
  return {
    files: report.files,
    durationMs: Math.round(report.seconds * 1000),
    errors: report.errors.length + report.grammarErrors.length,
  }
}
