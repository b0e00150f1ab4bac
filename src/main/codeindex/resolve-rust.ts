import { existing, parentDir, posix, type ProjectLayout, type Resolution } from './resolve-layout'
import type { ImportFact } from './types'

/*
 * Rust imports (resolve.ts): `mod x;` is a file beside (or under) the declaring
 * module, `crate::`, `self::` and `super::` paths are walked from the crate's src/
 * (the nearest Cargo.toml) or the module's folder to the longest existing module;
 * std, core and alloc are builtin.
 */

export function resolveRust(layout: ProjectLayout, from: string, imp: ImportFact): Resolution {
  if (imp.mod) {
    const target = rustPath(layout, rustModuleDir(from), [imp.source])
    return { kind: 'internal', targets: target ? [target] : [] }
  }
  const segments = imp.source.split('::').filter((s) => s !== '' && !s.includes('{'))
  const head = segments[0]
  let base: string | undefined
  if (head === 'crate') base = rustCrateSrc(layout, from)
  else if (head === 'self') base = rustModuleDir(from)
  else if (head === 'super') base = parentDir(rustModuleDir(from))
  if (base !== undefined) {
    const target = rustPath(layout, base, segments.slice(1))
    return { kind: 'internal', targets: target ? [target] : [] }
  }
  if (head === 'std' || head === 'core' || head === 'alloc') return { kind: 'builtin', targets: [] }
  return { kind: 'external', targets: [] }
}

/** The folder a module's submodules live in: its own for main.rs, lib.rs and mod.rs, else one named for it. */
function rustModuleDir(file: string): string {
  const base = posix.basename(file)
  const dir = parentDir(file)
  return base === 'main.rs' || base === 'lib.rs' || base === 'mod.rs'
    ? dir
    : posix.join(dir, base.slice(0, -3))
}

function rustCrateSrc(layout: ProjectLayout, file: string): string {
  for (let dir = parentDir(file); ; dir = parentDir(dir)) {
    if (layout.cargoDirs.has(dir)) return posix.join(dir, 'src')
    if (dir === '') return posix.basename(parentDir(file)) === 'src' ? parentDir(file) : 'src'
  }
}

/** The longest prefix of `segments` under `baseDir` that is a module file. */
function rustPath(layout: ProjectLayout, baseDir: string, segments: string[]): string | undefined {
  for (let n = segments.length; n > 0; n--) {
    const p = posix.join(baseDir, ...segments.slice(0, n))
    const hit = existing(layout, [`${p}.rs`, `${p}/mod.rs`])
    if (hit) return hit
  }
  return undefined
}
