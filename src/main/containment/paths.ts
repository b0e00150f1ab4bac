import fs from 'node:fs'
import path from 'node:path'
import type { ResolvedPath } from './types'
import { errnoCode } from '../../shared/errors'

/**
 * Resolves a model-supplied path inside `root` (already realpath'd), following
 * symlinks so a link can never lead a tool out of the project (docs/sandbox.md#paths).
 * For a path that does not exist yet, the deepest existing ancestor is realpath'd
 * and the rest appended, so writes land where the check says they will.
 */
export function resolveInside(root: string, input: string): ResolvedPath | { error: string } {
  if (typeof input !== 'string') return { error: 'The path must be a string.' }
  if (input.includes('\0'))
    return { error: 'The path contains a NUL byte; give a plain relative path such as "src/index.ts".' }
  const raw = process.platform === 'win32' ? input.replace(/\\/g, '/') : input
  const trimmed = raw.trim()

  if (
    path.isAbsolute(trimmed) ||
    path.posix.isAbsolute(trimmed) ||
    /^[a-zA-Z]:[\\/]/.test(trimmed) ||
    trimmed.startsWith('~')
  ) {
    const inside = path.isAbsolute(trimmed) ? path.relative(root, trimmed) : undefined
    const hint =
      inside !== undefined && !inside.startsWith('..') && !path.isAbsolute(inside)
        ? ` Use the project-relative path "${toPosix(inside) || '.'}" instead.`
        : ' Paths are relative to the project root, e.g. "src/index.ts".'
    return { error: `Absolute paths are not allowed: "${input}".${hint}` }
  }

  const normalized = path.posix.normalize(trimmed === '' ? '.' : trimmed).replace(/\/+$/, '')
  if (normalized === '..' || normalized.startsWith('../')) {
    return { error: `"${input}" leads outside the project root; only files inside the project can be used.` }
  }

  const lexical = path.join(root, normalized)
  const real = realpathOfDeepestAncestor(lexical)
  if (real.error !== undefined) return { error: `"${input}": ${real.error}` }
  const abs = real.rest.length > 0 ? path.join(real.existing, ...real.rest) : real.existing
  if (!isInside(root, abs)) {
    return {
      error: `"${input}" is a symbolic link (or goes through one) that points outside the project root; it cannot be used.`,
    }
  }
  return { abs, rel: toPosix(path.relative(root, abs)) || '.' }
}

function realpathOfDeepestAncestor(
  lexical: string,
): { existing: string; rest: string[]; error?: undefined } | { error: string } {
  const rest: string[] = []
  let current = lexical
  for (;;) {
    try {
      return { existing: fs.realpathSync.native(current), rest }
    } catch (err) {
      const code = errnoCode(err)
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        return { error: `cannot be resolved (${code ?? 'error'}).` }
      // A name that lstat finds but realpath does not is a dangling symlink: writing
      // through it could create a file wherever it points, so refuse it.
      if (code === 'ENOENT' && lstatOrNull(current)?.isSymbolicLink()) {
        return { error: 'is a symbolic link whose target does not exist; it cannot be used.' }
      }
      const parent = path.dirname(current)
      if (parent === current) return { error: 'cannot be resolved.' }
      rest.unshift(path.basename(current))
      current = parent
    }
  }
}

function lstatOrNull(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p)
  } catch {
    return null
  }
}

/** True when `abs` is `root` or below it, whatever form either is given in. */
export function isInside(root: string, abs: string): boolean {
  return isInsideResolved(path.resolve(root), path.resolve(abs))
}

/**
 * `isInside` for paths already absolute and normalized (as path.resolve and path.join leave
 * them): a string test (path.relative costs more), for callers that ask it hundreds of times
 * a command or a tool call.
 */
export function isInsideResolved(root: string, abs: string): boolean {
  return abs === root || abs.startsWith(root.endsWith(path.sep) ? root : root + path.sep)
}

/** The folder holding the project path `rel` ('' for the root). */
export function parentOf(rel: string): string {
  const cut = rel.lastIndexOf('/')
  return cut < 0 ? '' : rel.slice(0, cut)
}

/** The project path of `name` inside the folder at project path `dir` ('' is the root). */
export function childOf(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`
}

/** Where the project path `rel` ('' is the root) is on disk, for a project at `root`. */
export function onDisk(root: string, rel: string): string {
  return rel === '' ? root : `${root}/${rel}`
}

export function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/')
}
