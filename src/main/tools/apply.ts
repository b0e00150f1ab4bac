import fs from 'node:fs/promises'
import path from 'node:path'
import { diffStat } from '../../shared/diff'
import { readWithFingerprint, sameContent } from '../containment/fingerprint'
import { fail, resolvePath } from './files'
import { beginTempWrite, tempPathFor } from '../containment/temp-files'
import { byteLength, countLines } from './text'
import type { FileChange, ToolContext, ToolFailure } from './types'
import { errnoCode, errorMessage } from '../../shared/errors'

/** The file changed on disk between the proposal and the write (the user edited it meanwhile). */
export interface ApplyConflict {
  ok: false
  error: string
  conflict: true
}

/** A change written: what the model reads of it. */
export type AppliedChange = {
  ok: true
  path: string
  action: 'created' | 'modified' | 'deleted'
  deleted?: true
  lines: number
  bytes: number
  /** "+added -removed" lines. */
  diff: string
}

/** What applying a change comes to: written, refused for a change on disk, or failed. */
export type ApplyOutcome = AppliedChange | ApplyConflict | ToolFailure<{ conflict?: undefined }>

export function isApplyConflict(result: ApplyOutcome): result is ApplyConflict {
  return !result.ok && result.conflict === true
}

/**
 * Writes an approved change. `finalAfter` is the user's edited version when they
 * changed the proposal (null turns it into a delete). Refuses with an
 * `ApplyConflict` when the file on disk is no longer the one the change was
 * computed from, so a change made meanwhile by the user or another program is
 * never overwritten — unless `force` says the user chose to apply it anyway.
 */
export async function applyFileChange(
  change: FileChange,
  ctx: ToolContext,
  finalAfter?: string | null,
  opts: { force?: boolean } = {},
): Promise<ApplyOutcome> {
  const file = resolvePath(ctx, change.path)
  if (!file.ok) return fail(file.error)

  let current: Awaited<ReturnType<typeof readWithFingerprint>>
  try {
    current = await readWithFingerprint(file.abs)
  } catch (err) {
    return fail(`"${file.rel}" cannot be written: ${errnoCode(err) ?? errorMessage(err)}.`)
  }
  const conflict = (error: string): ApplyConflict => ({ ok: false, error, conflict: true })
  if (!opts.force && change.fingerprint === null && current !== null) {
    return conflict(
      `"${file.rel}" was created on disk after you proposed this change. Read it with read_file and try again.`,
    )
  }
  if (!opts.force && change.fingerprint !== null) {
    if (current === null)
      return conflict(
        `"${file.rel}" was deleted on disk after you read it. Check with list_files before trying again.`,
      )
    if (!sameContent(change.fingerprint, current.fingerprint)) {
      return conflict(
        `"${file.rel}" changed on disk since you read it; read it again with read_file and redo the change on its current content.`,
      )
    }
  }

  const content = finalAfter !== undefined ? finalAfter : change.after
  const stat = diffStat(change.before, content)
  const diff = `+${stat.added} -${stat.removed}`
  if (content === null) {
    if (current !== null) await fs.unlink(file.abs)
    ctx.reads.forget(file.rel)
    return { ok: true, path: file.rel, action: 'deleted', deleted: true, lines: 0, bytes: 0, diff }
  }

  const mode = current ? (await fs.stat(file.abs)).mode & 0o7777 : undefined
  try {
    await writeAtomic(file.abs, content, mode)
  } catch (err) {
    const code = errnoCode(err)
    const hint =
      code === 'ENOTDIR' || code === 'EEXIST' ? ' A parent of this path is a file, not a directory.' : ''
    return fail(`"${file.rel}" could not be written (${code ?? errorMessage(err)}).${hint}`)
  }
  const written = await readWithFingerprint(file.abs)
  if (written) ctx.reads.recordRead(file.rel, written.fingerprint)
  return {
    ok: true,
    path: file.rel,
    action: current === null ? 'created' : 'modified',
    lines: countLines(content),
    bytes: byteLength(content),
    diff,
  }
}

/**
 * Temp file in the same directory, then rename: a reader (or a crash) sees the old
 * file or the new one, never half of it. The existing mode is kept, so an
 * executable script stays executable.
 */
async function writeAtomic(abs: string, content: string, mode: number | undefined): Promise<void> {
  const dir = path.dirname(abs)
  await fs.mkdir(dir, { recursive: true })
  const tmp = tempPathFor(abs)
  const journal = beginTempWrite(tmp)
  const handle = await fs.open(tmp, 'wx', mode ?? 0o666)
  try {
    await handle.writeFile(content, 'utf8')
    if (mode !== undefined) await handle.chmod(mode)
    await handle.sync()
    await handle.close()
    await fs.rename(tmp, abs)
  } catch (err) {
    await handle.close().catch(() => {})
    await fs.unlink(tmp).catch(() => {})
    throw err
  } finally {
    journal.done()
  }
}
