import { builtinModules } from 'node:module'
import path from 'node:path'
import { PYTHON_STDLIB } from './python-stdlib'
import type { FileFacts, ImportFact } from './types'

/*
 * Import → file, against the whole file set. Runs in memory after every build or
 * update (cheap: a Set lookup per candidate), because whether `./b` means b.ts or
 * b/index.ts depends on which files exist, not on the importing file's bytes.
 */

export type ImportKind = 'internal' | 'external' | 'builtin'

export interface Resolution {
  kind: ImportKind
  /** Project files the import points at (a Go package or Java wildcard can be several). */
  targets: string[]
}

const posix = path.posix
const JS_EXTS = ['.ts', '.tsx', '.d.ts', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts', '.json']
const NODE_BUILTINS = new Set(builtinModules)

interface TsConfig {
  dir: string
  baseUrl?: string
  paths?: Record<string, string[]>
}

export type Resolver = (from: string, facts: FileFacts, imp: ImportFact) => Resolution

export function createResolver(files: ReadonlyMap<string, FileFacts>): Resolver {
  const fileSet = new Set(files.keys())
  const dirFiles = new Map<string, string[]>()
  const tsconfigs = new Map<string, TsConfig>()
  const packages = new Map<string, { dir: string; entries: string[] }>()
  const goModules: Array<{ dir: string; module: string }> = []
  const javaTypes = new Map<string, string>()
  const javaPackages = new Map<string, string[]>()
  const cargoDirs = new Set<string>()
  const pythonRoots = new Set<string>(['', 'src'])

  for (const [file, facts] of files) {
    const dir = posix.dirname(file) === '.' ? '' : posix.dirname(file)
    let list = dirFiles.get(dir)
    if (!list) dirFiles.set(dir, (list = []))
    list.push(file)
    const base = posix.basename(file)
    const config = facts.config
    if (config?.goModule) goModules.push({ dir, module: config.goModule })
    if (base === 'package.json' && config?.packageName)
      packages.set(config.packageName, { dir, entries: config.entryFiles ?? [] })
    if (
      config &&
      (config.baseUrl !== undefined || config.paths || config.extends) &&
      /^(ts|js)config/.test(base)
    )
      tsconfigs.set(file, { dir, baseUrl: config.baseUrl, paths: config.paths })
    if (base === 'Cargo.toml') cargoDirs.add(dir)
    if (base === 'setup.py' || base === 'pyproject.toml') pythonRoots.add(dir)
    if (facts.language === 'java' && facts.package !== undefined) {
      javaTypes.set(`${facts.package}.${posix.basename(file, '.java')}`, file)
      const pkg = javaPackages.get(facts.package) ?? []
      pkg.push(file)
      javaPackages.set(facts.package, pkg)
    }
  }
  // Inherit baseUrl/paths through `extends` when the base config is in the project.
  for (const [file, config] of tsconfigs) {
    const ext = files.get(file)?.config?.extends
    if (!ext || !ext.startsWith('.')) continue
    const parentFile = [posix.join(config.dir, ext), posix.join(config.dir, ext + '.json')].find((f) =>
      tsconfigs.has(f),
    )
    const parent = parentFile ? tsconfigs.get(parentFile) : undefined
    if (!parent) continue
    if (config.baseUrl === undefined && parent.baseUrl !== undefined)
      config.baseUrl = posix.relative(config.dir, posix.join(parent.dir, parent.baseUrl)) || '.'
    if (!config.paths && parent.paths) {
      config.paths = parent.paths
      config.baseUrl ??= posix.relative(config.dir, parent.dir) || '.'
    }
  }
  goModules.sort((a, b) => b.module.length - a.module.length)
  const tsconfigForDir = new Map<string, TsConfig | null>()

  const existing = (candidates: string[]): string | undefined => candidates.find((c) => fileSet.has(c))

  const jsFile = (p: string): string | undefined => {
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
  const resolveJs = (from: string, source: string): Resolution => {
    if (source.startsWith('.') || source.startsWith('/')) {
      const dir = posix.dirname(from)
      const key = `${dir}\0${source}`
      let hit = relativeCache.get(key)
      if (!hit) {
        const target = jsFile(posix.join(dir, source).replace(/\/$/, ''))
        hit = { kind: 'internal', targets: target ? [target] : [] }
        relativeCache.set(key, hit)
      }
      return hit
    }
    if (source.startsWith('node:') || NODE_BUILTINS.has(source)) return { kind: 'builtin', targets: [] }
    const config = nearestTsconfig(parentDir(from))
    if (config) {
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
          const target = jsFile(posix.join(baseDir, r.replace('*', middle)))
          if (target) return { kind: 'internal', targets: [target] }
        }
      }
      if (config.baseUrl !== undefined) {
        const target = jsFile(posix.join(baseDir, source))
        if (target) return { kind: 'internal', targets: [target] }
      }
    }
    // A workspace package of this repository, by its package.json name.
    const parts = source.split('/')
    const name = source.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
    const pkg = packages.get(name)
    if (pkg) {
      const sub = source.slice(name.length + 1)
      const target = sub
        ? (jsFile(posix.join(pkg.dir, sub)) ?? jsFile(posix.join(pkg.dir, 'src', sub)))
        : (existing(pkg.entries.map((e) => posix.join(pkg.dir, e))) ??
          jsFile(posix.join(pkg.dir, 'src/index')) ??
          jsFile(posix.join(pkg.dir, 'index')))
      return { kind: 'internal', targets: target ? [target] : [] }
    }
    return { kind: 'external', targets: [] }
  }

  const pythonModule = (dotted: string, roots: Iterable<string>): string | undefined => {
    const rel = dotted.replace(/\./g, '/')
    for (const root of roots) {
      const base = posix.join(root, rel)
      const hit = existing([`${base}.py`, `${base}/__init__.py`, `${base}.pyi`])
      if (hit) return hit
    }
    return undefined
  }

  const resolvePython = (from: string, imp: ImportFact): Resolution => {
    let roots: string[] = [...pythonRoots]
    if (imp.level) {
      let dir = parentDir(from)
      for (let i = 1; i < imp.level; i++) dir = parentDir(dir)
      roots = [dir]
    }
    const targets = new Set<string>()
    // `from pkg import mod` may name submodules; `from mod import func` names the module's contents.
    for (const name of imp.names) {
      if (name === '*') continue
      const sub = pythonModule(imp.source ? `${imp.source}.${name}` : name, roots)
      if (sub) targets.add(sub)
    }
    if (targets.size === 0 && imp.source) {
      const mod = pythonModule(imp.source, roots)
      if (mod) targets.add(mod)
    }
    if (targets.size === 0 && imp.level) {
      const init = existing([posix.join(roots[0], '__init__.py')])
      if (init && init !== from) targets.add(init)
    }
    if (targets.size > 0 || imp.level) return { kind: 'internal', targets: [...targets] }
    const top = imp.source.split('.')[0]
    return { kind: PYTHON_STDLIB.has(top) ? 'builtin' : 'external', targets: [] }
  }

  const resolveGo = (from: string, source: string): Resolution => {
    for (const { dir, module } of goModules) {
      if (source !== module && !source.startsWith(module + '/')) continue
      const pkgDir = posix.join(dir, source.slice(module.length + 1))
      const targets = (dirFiles.get(pkgDir === '.' ? '' : pkgDir) ?? []).filter(
        (f) => f.endsWith('.go') && !f.endsWith('_test.go') && f !== from,
      )
      return { kind: 'internal', targets }
    }
    return { kind: source.split('/')[0].includes('.') ? 'external' : 'builtin', targets: [] }
  }

  const rustModuleDir = (file: string): string => {
    const base = posix.basename(file)
    const dir = parentDir(file)
    return base === 'main.rs' || base === 'lib.rs' || base === 'mod.rs'
      ? dir
      : posix.join(dir, base.slice(0, -3))
  }
  const rustCrateSrc = (file: string): string => {
    for (let dir = parentDir(file); ; dir = parentDir(dir)) {
      if (cargoDirs.has(dir)) return posix.join(dir, 'src')
      if (dir === '') return posix.basename(parentDir(file)) === 'src' ? parentDir(file) : 'src'
    }
  }
  const rustPath = (baseDir: string, segments: string[]): string | undefined => {
    for (let n = segments.length; n > 0; n--) {
      const p = posix.join(baseDir, ...segments.slice(0, n))
      const hit = existing([`${p}.rs`, `${p}/mod.rs`])
      if (hit) return hit
    }
    return undefined
  }

  const resolveRust = (from: string, imp: ImportFact): Resolution => {
    if (imp.mod) {
      const target = rustPath(rustModuleDir(from), [imp.source])
      return { kind: 'internal', targets: target ? [target] : [] }
    }
    const segments = imp.source.split('::').filter((s) => s !== '' && !s.includes('{'))
    const head = segments[0]
    let base: string | undefined
    if (head === 'crate') base = rustCrateSrc(from)
    else if (head === 'self') base = rustModuleDir(from)
    else if (head === 'super') base = parentDir(rustModuleDir(from))
    if (base !== undefined) {
      const target = rustPath(base, segments.slice(1))
      return { kind: 'internal', targets: target ? [target] : [] }
    }
    if (head === 'std' || head === 'core' || head === 'alloc') return { kind: 'builtin', targets: [] }
    return { kind: 'external', targets: [] }
  }

  const resolveJava = (source: string): Resolution => {
    if (source.endsWith('.*')) {
      const pkg = javaPackages.get(source.slice(0, -2)) ?? []
      if (pkg.length > 0) return { kind: 'internal', targets: [...pkg] }
    } else {
      // `import static a.b.C.method` names a member of the type a.b.C.
      for (let name = source; name.includes('.'); name = name.slice(0, name.lastIndexOf('.'))) {
        const hit = javaTypes.get(name)
        if (hit) return { kind: 'internal', targets: [hit] }
      }
    }
    return { kind: /^(java|javax|jdk|sun)\./.test(source) ? 'builtin' : 'external', targets: [] }
  }

  return (from: string, facts: FileFacts, imp: ImportFact): Resolution => {
    switch (facts.language) {
      case 'typescript':
      case 'tsx':
      case 'javascript':
        return resolveJs(from, imp.source)
      case 'python':
        return resolvePython(from, imp)
      case 'go':
        return resolveGo(from, imp.source)
      case 'rust':
        return resolveRust(from, imp)
      case 'java':
        return resolveJava(imp.source)
      default:
        return { kind: 'external', targets: [] }
    }
  }
}

function parentDir(p: string): string {
  const d = posix.dirname(p)
  return d === '.' || d === '/' ? '' : d
}
