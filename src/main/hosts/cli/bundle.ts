import fs from 'node:fs'
import path from 'node:path'
import { Option, type Command } from 'commander'
import { BundleError, bundleFileName, exportBundle, importBundle } from '../../timetravel/bundle'
import { EXIT, UsageError } from './exit-codes'
import { requireSession, openCliStore } from './session-store'
import { inertText } from '../../../shared/terminalText'

function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`
  return `${(n / 1024 / 1024).toFixed(1)} MB`
}

/** `stepwise sessions export ID --format bundle [--out FILE]`. */
export async function exportBundleToFile(
  id: string,
  opts: { dataDir?: string; out?: string },
): Promise<number> {
  const store = openCliStore(opts.dataDir)
  try {
    const session = requireSession(store, id)
    const out = path.resolve(opts.out ?? bundleFileName(session.id))
    if (!fs.existsSync(path.dirname(out))) throw new UsageError(`no such folder: ${path.dirname(out)}`)
    const r = await exportBundle(store, session.id, out)
    process.stdout.write(
      `Wrote ${out} (${formatBytes(r.bytes)}: ${r.events} events, ${r.traffic} traffic entries, ${r.snapshots} snapshots, ${r.blobs} blobs)\n` +
        `Import it elsewhere with: stepwise sessions import ${JSON.stringify(path.basename(out))}\n`,
    )
    return EXIT.ok
  } finally {
    store.close()
  }
}

/** `stepwise sessions import FILE [--repo DIR]`: exit 2 for an unreadable file, 1 for a refused bundle. */
export function importBundleFile(file: string, opts: { dataDir?: string; repo?: string }): number {
  const input = path.resolve(file)
  try {
    fs.accessSync(input, fs.constants.R_OK)
    if (!fs.statSync(input).isFile()) throw new Error('not a file')
  } catch {
    throw new UsageError(`cannot read ${input}: no such file, or not a readable file.`)
  }
  const repo = opts.repo ? path.resolve(opts.repo) : undefined
  if (repo && !fs.statSync(repo, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`--repo ${repo} is not a folder.`)
  const store = openCliStore(opts.dataDir)
  try {
    const r = importBundle(store, input, { repo })
    const dataDir = opts.dataDir ? ` --data-dir ${JSON.stringify(opts.dataDir)}` : ''
    process.stdout.write(
      `Imported session ${r.sessionId}${r.sessionId !== r.originalId ? ` (its id ${r.originalId} is taken here, so it has a new one)` : ''}: ` +
        `${r.events} events, ${r.traffic} traffic entries, ${r.snapshots} snapshots, ${r.blobs} blobs (${r.newBlobs} new)\n` +
        `Project folder: ${inertText(r.repo)}\n` +
        `Show it with: stepwise sessions show ${r.sessionId}${dataDir}\n`,
    )
    return EXIT.ok
  } catch (err) {
    if (err instanceof BundleError) {
      process.stderr.write(`stepwise: ${inertText(err.message)}\n`)
      return err.code === 'not-a-bundle' ? EXIT.usage : EXIT.failed
    }
    throw err
  } finally {
    store.close()
  }
}

export function addImportCommand(sessions: Command): void {
  sessions
    .command('import')
    .description('Import a session bundle written by: sessions export ID --format bundle')
    .argument('<file>', 'the .stepwise bundle')
    .addOption(new Option('--repo <dir>', 'the project folder here (default: the folder it was recorded in)'))
    .addOption(
      new Option(
        '--data-dir <dir>',
        'where sessions are stored (default: $STEPWISE_HOME, else the OS app-data folder)',
      ),
    )
    .action((file: string, opts: { dataDir?: string; repo?: string }) => {
      process.exitCode = importBundleFile(file, opts)
    })
}
