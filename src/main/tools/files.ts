import fs from 'node:fs/promises'
import type { Gate } from '../containment/gate'
import type { GatedRead, GateRefusal, ResolvedPath } from '../containment/types'
import { readWithFingerprint } from '../containment/fingerprint'
import { formatBytes } from './text'
import { decodeText, isBinary } from '../../shared/text-bytes'
import type { FileFingerprint } from '../containment/fingerprint'
import type { Outcome, ToolContext, ToolFailure } from './types'
import { errnoCode } from '../../shared/errors'

/** Beyond this a file is not loaded into memory at all, whatever the range asked for. */
export const MAX_LOAD_BYTES = 64 * 1024 * 1024

export type ToolError = ToolFailure
export const fail = (error: string): ToolError => ({ ok: false, error })

/**
 * The sandbox (and the project checks' preparation, verify/project.ts) answers a refusal as
 * `{ error }` with no discriminant (its types predate `Outcome`): the one place the tools and the
 * agent tell it apart, so every caller discriminates on `ok`.
 */
export function refused<T extends object>(answer: T | GateRefusal): answer is GateRefusal {
  // eslint-disable-next-line stepwise/no-in-operator -- the sandbox's refusal carries no `ok`; translated here once
  return 'error' in answer
}

/** Resolves a model path through the sandbox, as a value or an error for the model. */
export function resolvePath(
  ctx: Pick<ToolContext, 'sandbox'>,
  input: string,
  opts?: { allowDenied?: boolean },
): Outcome<ResolvedPath> {
  const resolved = ctx.sandbox.resolve(input, opts)
  return refused(resolved) ? fail(resolved.error) : { ok: true, ...resolved }
}

/** Resolves a root-relative path through the gate itself (judged again now), as a value or an error. */
export function resolveGated(gate: Gate, rel: string): Outcome<ResolvedPath> {
  const resolved = gate.resolve(rel)
  return refused(resolved) ? fail(resolved.error) : { ok: true, ...resolved }
}

/** Reads a resolved file through the sandbox's gate (secrets refused), as a value or an error for the model. */
export function readGated(gate: Gate, file: ResolvedPath, opts: { maxBytes: number }): Outcome<GatedRead> {
  const read = gate.read(file, opts)
  return refused(read) ? fail(read.error) : { ok: true, ...read }
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
export async function loadTextFile(file: ResolvedPath, gate: Gate): Promise<Outcome<LoadedText>> {
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
    if (errnoCode(err) !== 'ELOOP') throw err
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
  return { ok: true, text, invalidUtf8, bytes: loaded.data.length, fingerprint: loaded.fingerprint }
}
