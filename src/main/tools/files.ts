import fs from 'node:fs/promises'
import type { Gate } from '../containment/gate'
import type { ResolvedPath } from '../containment/types'
import { readWithFingerprint } from '../containment/fingerprint'
import { formatBytes } from './text'
import { decodeText, isBinary } from '../../shared/text-bytes'
import type { FileFingerprint } from '../containment/fingerprint'
import type { ToolContext } from './types'

/** Beyond this a file is not loaded into memory at all, whatever the range asked for. */
export const MAX_LOAD_BYTES = 64 * 1024 * 1024

export type ToolError = { ok: false; error: string }
export const fail = (error: string): ToolError => ({ ok: false, error })

/** Resolves a model path through the sandbox, as a value or an error for the model. */
export function resolvePath(ctx: ToolContext, input: string): ResolvedPath | ToolError {
  const resolved = ctx.sandbox.resolve(input)
  return 'error' in resolved ? fail(resolved.error) : resolved
}

export type StatKind = 'missing' | 'file' | 'directory' | 'other'

export async function statKind(abs: string): Promise<{ kind: StatKind; size: number }> {
  try {
    const stat = await fs.stat(abs)
    return { kind: stat.isFile() ? 'file' : stat.isDirectory() ? 'directory' : 'other', size: stat.size }
  } catch {
    return { kind: 'missing', size: 0 }
  }
}

export interface LoadedText {
  text: string
  invalidUtf8: boolean
  /** The file's size on disk in bytes. */
  bytes: number
  fingerprint: FileFingerprint
}

/**
 * An existing text file, or an error the model can act on (missing, a directory,
 * binary, too large to load).
 */
export async function loadTextFile(file: ResolvedPath, gate: Gate): Promise<LoadedText | ToolError> {
  const { kind, size } = await statKind(file.abs)
  if (kind === 'missing')
    return fail(`"${file.rel}" does not exist. Use list_files to see which files exist.`)
  if (kind === 'directory')
    return fail(
      `"${file.rel}" is a directory, not a file. Use list_files with prefix "${file.rel}" to see its files.`,
    )
  if (kind === 'other') return fail(`"${file.rel}" is not a regular file.`)
  if (size > MAX_LOAD_BYTES) {
    return fail(
      `"${file.rel}" is too large to open (${formatBytes(size)}). Use search_in_files to find what you need in it.`,
    )
  }
  let loaded: Awaited<ReturnType<typeof readWithFingerprint>>
  try {
    loaded = await readWithFingerprint(file.abs)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOOP') throw err
    return fail(`"${file.rel}" was replaced by a symbolic link since it was checked; it cannot be read.`)
  }
  if (!loaded) return fail(`"${file.rel}" does not exist. Use list_files to see which files exist.`)
  const secret = gate.checkContent(file.rel, loaded.data)
  if (secret) return fail(secret.error)
  if (isBinary(loaded.data)) {
    return fail(
      `"${file.rel}" is a binary file (${formatBytes(loaded.data.length)}); only text files can be shown or edited. Use file_info for its details.`,
    )
  }
  const { text, invalidUtf8 } = decodeText(loaded.data)
  return { text, invalidUtf8, bytes: loaded.data.length, fingerprint: loaded.fingerprint }
}
