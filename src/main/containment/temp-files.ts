import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { pidAlive } from '../store/liveness'

/*
 * The temp files Stepwise writes beside a project file before renaming them into place (a file
 * tool's change, a restore): one name for both writers, and a journal so that one a killed process
 * left behind is removed at the next open of the data folder (open-data-folder.ts) — git would
 * otherwise show it. Until then the gate does not admit the name (gate.ts), so no listing,
 * snapshot, index or search ever holds one.
 *
 * The journal is a line per event in `<data folder>/temp-writes/<pid>.log`, appended without an
 * fsync: what a killed process wrote is in the page cache and read back by the next process; only
 * a power loss could drop the last line, and then the leftover stays hidden by the gate.
 */

const SUFFIX = '.stepwise-tmp'

/** Ours: `.NAME.HEX.stepwise-tmp`, and `.NAME.stepwise-HEX.tmp` as restores named them before. */
const TEMP_NAME = /(^|\/)\.[^/]+\.(?:[0-9a-f]{8,16}\.stepwise-tmp|stepwise-[0-9a-f]{8}\.tmp)$/

export function isStepwiseTemp(rel: string): boolean {
  return TEMP_NAME.test(rel)
}

/** A new temp path beside `abs`, in its folder (a rename across folders would not be atomic). */
export function tempPathFor(abs: string): string {
  return path.join(path.dirname(abs), `.${path.basename(abs)}.${randomBytes(6).toString('hex')}${SUFFIX}`)
}

let journalDir: string | undefined

/** Where this process notes its temp files (data-folder.ts#bindDataFolder sets it). */
export function keepTempJournalIn(dataDir: string): void {
  journalDir = path.join(dataDir, 'temp-writes')
}

function note(line: string): void {
  if (!journalDir) return
  try {
    fs.mkdirSync(journalDir, { recursive: true })
    fs.appendFileSync(path.join(journalDir, `${process.pid}.log`), line + '\n')
  } catch {
    // A data folder we cannot write: the gate still hides a leftover.
  }
}

/** Call before the temp file is created, and `done` once it is renamed or removed. */
export function beginTempWrite(tmp: string): { done: () => void } {
  note(`+${tmp}`)
  return { done: () => note(`-${tmp}`) }
}

/**
 * Removes the temp files that processes no longer running began and never finished, and their
 * journals; returns the paths removed. Only names of ours are touched.
 */
export function sweepTempWrites(dataDir: string): string[] {
  const dir = path.join(dataDir, 'temp-writes')
  let logs: string[]
  try {
    logs = fs.readdirSync(dir)
  } catch {
    return []
  }
  const removed: string[] = []
  for (const log of logs) {
    const pid = Number(log.replace(/\.log$/, ''))
    if (!Number.isInteger(pid) || pid === process.pid || pidAlive(pid)) continue
    const file = path.join(dir, log)
    for (const tmp of pendingIn(file)) {
      if (!isStepwiseTemp(tmp.split(path.sep).join('/'))) continue
      try {
        if (fs.lstatSync(tmp).isFile()) {
          fs.unlinkSync(tmp)
          removed.push(tmp)
        }
      } catch {
        // gone already
      }
    }
    fs.rmSync(file, { force: true })
  }
  return removed
}

function pendingIn(file: string): string[] {
  const pending = new Set<string>()
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {
    return []
  }
  for (const line of text.split('\n')) {
    if (line.startsWith('+')) pending.add(line.slice(1))
    else if (line.startsWith('-')) pending.delete(line.slice(1))
  }
  return [...pending]
}
