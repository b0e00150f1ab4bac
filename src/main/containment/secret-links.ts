import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { HOME_CREDENTIALS } from './denylist'

/*
 * A hard link is the same file under another name: `notes.txt` linked to `~/.aws/credentials`
 * (or to the project's `.env`) reads the credential, though neither its name nor its real path
 * is on the denylist. A link the agent could make itself is refused elsewhere (a sandboxed
 * command cannot link across the mounts); this catches the ones already there — left by an
 * earlier unconfined tool, an unpacked archive, a script the user ran. The secrets are the
 * denylist's own (HOME_CREDENTIALS and the project's secret files): the link is judged by the
 * file it shares, so the list stays one.
 */

/** A credential folder is walked this deep and this far at most (`~/.ssh`, `~/.aws`, `~/.gnupg` are small). */
const MAX_DEPTH = 4
const MAX_FILES = 2000

const key = (st: fs.Stats) => `${st.dev}:${st.ino}`

function collect(p: string, depth: number, out: Set<string>): void {
  if (out.size >= MAX_FILES) return
  let st: fs.Stats | undefined
  try {
    // Followed: dotfile managers link ~/.ssh or ~/.aws/credentials from elsewhere (depth and count bound loops).
    st = fs.statSync(p, { throwIfNoEntry: false })
  } catch {
    return // unreadable: nothing here can be linked by us either
  }
  if (!st) return
  if (st.isFile()) {
    out.add(key(st))
    return
  }
  if (!st.isDirectory() || depth >= MAX_DEPTH) return
  let names: string[]
  try {
    names = fs.readdirSync(p)
  } catch {
    return
  }
  for (const name of names) collect(path.join(p, name), depth + 1, out)
}

/**
 * `dev:ino` of every secret file: the home credentials (folders walked, links followed),
 * the project's secret files and any `extra` host secrets.
 */
export function secretInodes(
  home: string | undefined,
  projectSecrets: readonly string[],
  extra: readonly string[] = [],
): Set<string> {
  const out = new Set<string>()
  if (home && home !== '/') for (const rel of HOME_CREDENTIALS) collect(path.join(home, rel), 0, out)
  for (const p of [...projectSecrets, ...extra]) collect(p, 0, out)
  return out
}

/** True when `abs` is a regular file with more than one name, one of which is a secret. */
export function sharesSecretInode(abs: string, inodes: ReadonlySet<string>): boolean {
  let st: fs.Stats | undefined
  try {
    st = fs.statSync(abs, { throwIfNoEntry: false })
  } catch {
    return false
  }
  return Boolean(st && st.isFile() && st.nlink > 1 && inodes.has(key(st)))
}

/** True when `abs` is a regular file with more than one name (the only files worth the secrets' inodes). */
export function hasOtherNames(abs: string): boolean {
  try {
    const st = fs.statSync(abs, { throwIfNoEntry: false })
    return Boolean(st && st.isFile() && st.nlink > 1)
  } catch {
    return false
  }
}

/** The user's home, as the file tools see it. */
export function userHome(): string | undefined {
  try {
    return os.homedir()
  } catch {
    return undefined
  }
}
