import fs from 'node:fs'
import type { Command } from 'commander'
import { storedManifestReader } from '../../snapshot/manifest-links'
import { compactStore, purgeSessions } from '../../store/purge'
import type { SessionRow } from '../../store/types'
import { EXIT, UsageError } from './exit-codes'
import { dataDirOption, requireSession, withStore } from './session-store'
import { confirm } from './confirm'
import { inertText } from '../../../shared/terminalText'

/*
 * `stepwise sessions delete ID… [--yes]` and `stepwise sessions rename ID "title"` (docs/cli.md).
 * The CLI deletes for good at once (the app's delete is undoable for a while; see
 * service/sessions.ts); forks of a deleted session stay and keep working.
 */

interface ManageOptions {
  dataDir?: string
  yes?: boolean
  force?: boolean
}

export function addManageCommands(sessions: Command): void {
  sessions
    .command('delete')
    .description('Delete sessions for good, with the snapshots and file contents no other session uses')
    .argument('<ids...>', 'session ids (a unique prefix is enough)')
    .option('--yes', 'do not ask for confirmation (required when not on a terminal)')
    .option('--force', 'delete a session although a live process is running it')
    .addOption(dataDirOption())
    .action(async (ids: string[], opts: ManageOptions) => {
      process.exitCode = await deleteSessions(ids, opts)
    })
  sessions
    .command('rename')
    .description("Change a session's title")
    .argument('<id>', 'session id (a unique prefix is enough)')
    .argument('<title>', 'the new title')
    .addOption(dataDirOption())
    .action((id: string, title: string, opts: ManageOptions) => {
      process.exitCode = renameSession(id, title, opts)
    })
}

function fileBytes(file: string): number {
  let total = 0
  for (const f of [file, `${file}-wal`]) {
    try {
      total += fs.statSync(f).size
    } catch {
      // No log file: nothing to count.
    }
  }
  return total
}

function kib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`
}

async function deleteSessions(ids: string[], opts: ManageOptions): Promise<number> {
  // Resolved (and the prompt answered) with the database closed: a slow answer holds no lock.
  const rows = withStore(opts, (store) => {
    const found = new Map<string, SessionRow>()
    for (const id of ids) {
      const row = requireSession(store, id)
      // Its turn may be going on in the app or another terminal, whose next event would fail.
      if (row.status === 'running' && !opts.force)
        throw new UsageError(
          `session ${row.id} is running a turn in a live Stepwise process: stop it first, or pass --force (nothing was deleted).`,
        )
      found.set(row.id, row)
    }
    return [...found.values()]
  })
  if (!opts.yes) {
    if (!process.stdin.isTTY)
      throw new UsageError('deleting sessions needs --yes when not run on a terminal (nothing was deleted).')
    for (const row of rows) process.stderr.write(`  ${row.id}  ${inertText(row.title)}\n`)
    const what = rows.length === 1 ? 'this session' : `these ${rows.length} sessions`
    if (!(await confirm(`Delete ${what} for good? [y/N] `))) {
      process.stderr.write('Nothing deleted.\n')
      return EXIT.ok
    }
  }
  return withStore(opts, (store) => {
    const before = fileBytes(store.path)
    const result = purgeSessions(
      store,
      rows.map((r) => r.id),
      storedManifestReader(store),
    )
    const compacted = compactStore(store)
    const after = fileBytes(store.path)
    const sessions = result.sessions === 1 ? '1 session' : `${result.sessions} sessions`
    process.stdout.write(
      `Deleted ${sessions}: ${result.snapshots} snapshots and ${result.blobs} stored file contents (${kib(result.blobBytes)}) no other session used.\n`,
    )
    process.stdout.write(
      compacted
        ? `Database ${kib(before)} → ${kib(after)}.\n`
        : 'Another process has the database open: the freed space is reused by later sessions.\n',
    )
    return EXIT.ok
  })
}

function renameSession(id: string, title: string, opts: ManageOptions): number {
  const clean = title.trim()
  if (!clean) throw new UsageError('the title is empty.')
  if (clean.length > 200) throw new UsageError('the title is longer than 200 characters.')
  return withStore(opts, (store) => {
    const row = requireSession(store, id)
    store.setSessionTitle(row.id, clean)
    process.stdout.write(`Renamed ${row.id}: ${inertText(clean)}\n`)
    return EXIT.ok
  })
}
