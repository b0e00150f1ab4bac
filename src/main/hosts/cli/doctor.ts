import fs from 'node:fs'
import path from 'node:path'
import type { Command } from 'commander'
import { defaultDataDir } from '../../config/paths'
import { checkStore, repairStore } from '../../store/doctor'
import { damagedMark } from '../../store/health'
import { EXIT } from './exit-codes'
import { dataDirOption } from './session-store'

/*
 * `stepwise doctor [--repair]` (docs/cli.md#doctor): the way out of a damaged store. It checks
 * the database whole (SQLite's integrity check), says what it found and where the daily backups
 * are; `--repair` keeps the damaged file beside the new one and copies every readable row over.
 */

interface DoctorOptions {
  dataDir?: string
  repair?: boolean
}

export function addDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description("Check the session store (SQLite's integrity check); --repair recovers a damaged one")
    .option('--repair', 'keep the damaged file aside and copy every row that can be read into a new one')
    .addOption(dataDirOption())
    .action((opts: DoctorOptions) => {
      process.exitCode = runDoctor(opts)
    })
}

export function runDoctor(opts: DoctorOptions): number {
  const dataDir = path.resolve(opts.dataDir ?? defaultDataDir())
  const check = checkStore(dataDir)
  const out = (line: string) => process.stdout.write(`${line}\n`)
  if (check.verdict === 'missing') {
    out(`No session store in ${dataDir} yet: nothing to check.`)
    return EXIT.ok
  }
  if (check.verdict === 'ok') {
    // A mark left by an earlier failure is stale once the whole file checks out.
    fs.rmSync(damagedMark(check.file), { force: true })
    out(`${check.file}: sound (SQLite's integrity check passed).`)
    out(backupsLine(dataDir))
    return EXIT.ok
  }
  out(`${check.file}: damaged.`)
  for (const problem of check.problems) out(`  ${problem}`)
  if (!opts.repair) {
    out(backupsLine(dataDir))
    out('Run `stepwise doctor --repair` to keep this file aside and recover what can be read into a new one,')
    out('or replace it with a backup above (copy it to stepwise.db while no Stepwise runs).')
    return EXIT.failed
  }
  const repair = repairStore(dataDir)
  out(`Kept the damaged file as ${repair.keptAs}.`)
  for (const t of repair.tables)
    if (t.copied > 0 || t.unreadable > 0)
      out(
        `  ${t.table}: ${t.copied} rows recovered${t.unreadable ? `, ${t.unreadable} unreadable (lost)` : ''}`,
      )
  const after = checkStore(dataDir)
  out(
    after.verdict === 'ok'
      ? `${repair.file} is sound again; Stepwise can use it.`
      : `The new file still fails its check (${after.problems.join('; ')}): use a backup instead.`,
  )
  return after.verdict === 'ok' ? EXIT.ok : EXIT.failed
}

function backupsLine(dataDir: string): string {
  const dir = path.join(dataDir, 'backups')
  let names: string[] = []
  try {
    names = fs
      .readdirSync(dir)
      .filter((n) => n.endsWith('.db'))
      .sort()
  } catch {
    // none yet
  }
  return names.length === 0
    ? 'No daily backup yet (the app and `stepwise serve` make one a day).'
    : `Daily backups: ${names.map((n) => path.join(dir, n)).join(', ')}`
}
