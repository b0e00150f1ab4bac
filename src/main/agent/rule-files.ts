import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { Store } from '../store/types'
import { RULE_FILES, ruleFileNames } from './prompt'

/** Past this, a rule file is hashed by its size and first bytes: no session reads more of it. */
const HASHED_BYTES = 1024 * 1024

/**
 * A fingerprint of each rule file that goes into the system prompt (prompt.ts), never following a
 * link: a link is hashed by where it points, so a file swapped for a link counts as changed.
 */
export function ruleFileHashes(root: string): Map<string, string> {
  const hashes = new Map<string, string>()
  for (const name of RULE_FILES) {
    const candidates = fs.lstatSync(path.join(root, name), { throwIfNoEntry: false })?.isSymbolicLink()
      ? [name]
      : ruleFileNames(root, name)
    for (const rel of candidates) {
      const hash = fingerprint(path.join(root, rel))
      if (hash) hashes.set(rel, hash)
    }
  }
  return hashes
}

function fingerprint(file: string): string | undefined {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false })
  if (!stat) return undefined
  const h = createHash('sha256')
  if (stat.isSymbolicLink()) return h.update(`link:${fs.readlinkSync(file)}`).digest('hex')
  if (!stat.isFile()) return undefined
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0))
  try {
    const buf = Buffer.alloc(Math.min(stat.size, HASHED_BYTES))
    const read = fs.readSync(fd, buf, 0, buf.length, 0)
    return h.update(`${stat.size}:`).update(buf.subarray(0, read)).digest('hex')
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Records the rule files a new session starts with and names those that differ from what the
 * project's previous session started with (added, changed or removed since): an agent in that
 * session, or someone else, changed what this one is told to follow.
 */
export function ruleFilesChangedSince(
  store: Pick<Store, 'approvals'>,
  sessionId: string,
  root: string,
): { path: string; sessionId: string }[] {
  let current: Map<string, string>
  try {
    current = ruleFileHashes(root)
  } catch {
    return [] // an unreadable rule file is prompt.ts's to report; nothing to compare
  }
  const previous = store.approvals.lastRuleFiles(root, sessionId)
  store.approvals.recordRuleFiles(sessionId, current)
  if (!previous) return []
  const paths = new Set([...current.keys(), ...previous.hashes.keys()])
  return [...paths]
    .filter((p) => current.get(p) !== previous.hashes.get(p))
    .sort()
    .map((p) => ({ path: p, sessionId: previous.sessionId }))
}
