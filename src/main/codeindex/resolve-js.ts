import { builtinModules } from 'node:module'
import {
  existing,
  parentDir,
  posix,
  type ProjectLayout,
  type Resolution,
  type TsConfig,
} from './resolve-layout'

/*
 * JavaScript and TypeScript imports (resolve.ts): relative paths with the extensions
 * and index files Node and TypeScript try, the nearest tsconfig's baseUrl and paths
 * (inherited through `extends`), Node's builtins and the repository's own workspace
 * packages; anything else is external.
 */

const JS_EXTS = ['.ts', '.tsx', '.d.ts', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts', '.json']
const NODE_BUILTINS = new Set(builtinModules)

export function createJsResolver(layout: ProjectLayout): (from: string, source: string) => Resolution {
  const tsconfigs = inheritedTsconfigs(layout.tsconfigs)
  const tsconfigForDir = new Map<string, TsConfig | null>()
  const nearestTsconfig = (dir: string): TsConfig | null => {
    const hit = tsconfigForDir.get(dir)
    if (hit !== undefined) return hit
    const own =
      tsconfigs.get(posix.join(dir, 'tsconfig.json')) ??
      tsconfigs.get(posix.join(dir, 'jsconfig.json')) ??
      null
    const found = own ?? (dir === '' ? null : nearestTsconfig(parentDir(dir)))
    tsconfigForDir.set(dir, found)
    return found
  }
  // Files in one folder import the same modules over and over.
  const relativeCache = new Map<string, Resolution>()
  const relative = (from: string, source: string): Resolution => {
    const dir = posix.dirname(from)
    const key = `${dir}\0${source}`
    let hit = relativeCache.get(key)
    if (!hit) {
      const target = jsFile(layout, posix.join(dir, source).replace(/\/$/, ''))
      hit = { kind: 'internal', targets: target ? [target] : [] }
      relativeCache.set(key, hit)
    }
    return hit
  }
  return (from, source) => {
    if (source.startsWith('.') || source.startsWith('/')) return relative(from, source)
    if (source.startsWith('node:') || NODE_BUILTINS.has(source)) return { kind: 'builtin', targets: [] }
    const config = nearestTsconfig(parentDir(from))
    const mapped = config ? byTsconfig(layout, config, source) : undefined
    if (mapped) return { kind: 'internal', targets: [mapped] }
    return workspacePackage(layout, source) ?? { kind: 'external', targets: [] }
  }
}

/** A path as an import names it: itself, with an extension, its emitted-file twin or its index file. */
function jsFile(layout: ProjectLayout, p: string): string | undefined {
  const fileSet = layout.files
  const clean = p.includes('./') || p.includes('//') ? posix.normalize(p).replace(/^\.\//, '') : p
  if (clean.startsWith('..')) return undefined
  if (fileSet.has(clean)) return clean
  for (const e of JS_EXTS) if (fileSet.has(clean + e)) return clean + e
  // ESM-style TypeScript imports name the emitted file: `./b.js` means b.ts.
  const m = /\.(m|c)?jsx?$/.exec(clean)
  if (m) {
    const stem = clean.slice(0, -m[0].length)
    for (const e of ['.ts', '.tsx', `.${m[1] ?? ''}ts`]) if (fileSet.has(stem + e)) return stem + e
  }
  for (const e of JS_EXTS) if (fileSet.has(`${clean}/index${e}`)) return `${clean}/index${e}`
  return undefined
}

/** A bare import through a tsconfig's `paths` patterns, then its `baseUrl`. */
function byTsconfig(layout: ProjectLayout, config: TsConfig, source: string): string | undefined {
  const baseDir = posix.join(config.dir, config.baseUrl ?? '.')
  for (const [pattern, replacements] of Object.entries(config.paths ?? {})) {
    const star = pattern.indexOf('*')
    const matches =
      star === -1
        ? source === pattern
        : source.startsWith(pattern.slice(0, star)) && source.endsWith(pattern.slice(star + 1))
    if (!matches) continue
    const middle = star === -1 ? '' : source.slice(star, source.length - (pattern.length - star - 1))
    for (const r of replacements) {
      const target = jsFile(layout, posix.join(baseDir, r.replace('*', middle)))
      if (target) return target
    }
  }
  return config.baseUrl !== undefined ? jsFile(layout, posix.join(baseDir, source)) : undefined
}

/** A workspace package of this repository, by its package.json name. */
function workspacePackage(layout: ProjectLayout, source: string): Resolution | undefined {
  const parts = source.split('/')
  const name = source.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
  const pkg = layout.packages.get(name)
  if (!pkg) return undefined
  const sub = source.slice(name.length + 1)
  const target = sub
    ? (jsFile(layout, posix.join(pkg.dir, sub)) ?? jsFile(layout, posix.join(pkg.dir, 'src', sub)))
    : (existing(
        layout,
        pkg.entries.map((e) => posix.join(pkg.dir, e)),
      ) ??
      jsFile(layout, posix.join(pkg.dir, 'src/index')) ??
      jsFile(layout, posix.join(pkg.dir, 'index')))
  return { kind: 'internal', targets: target ? [target] : [] }
}

/** The configs with baseUrl/paths inherited through `extends` when the base config is in the project. */
function inheritedTsconfigs(configs: ReadonlyMap<string, TsConfig>): Map<string, TsConfig> {
  const out = new Map([...configs].map(([file, c]) => [file, { ...c }]))
  for (const config of out.values()) {
    const ext = config.extends
    if (!ext || !ext.startsWith('.')) continue
    const parentFile = [posix.join(config.dir, ext), posix.join(config.dir, ext + '.json')].find((f) =>
      out.has(f),
    )
    const parent = parentFile ? out.get(parentFile) : undefined
    if (!parent) continue
    if (config.baseUrl === undefined && parent.baseUrl !== undefined)
      config.baseUrl = posix.relative(config.dir, posix.join(parent.dir, parent.baseUrl)) || '.'
    if (!config.paths && parent.paths) {
      config.paths = parent.paths
      config.baseUrl ??= posix.relative(config.dir, parent.dir) || '.'
    }
  }
  return out
}
