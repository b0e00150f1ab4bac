import path from 'node:path'
import type { FileFacts } from './types'

/*
 * The lookup tables import resolution reads (resolve.ts), made once from the whole
 * file set: which files exist and in which folder, and the project's module roots
 * per language — tsconfig/jsconfig files, workspace packages, go.mod modules, Java
 * packages, Cargo crates and Python source roots.
 */

export const posix = path.posix

export type ImportKind = 'internal' | 'external' | 'builtin'

export interface Resolution {
  kind: ImportKind
  /** Project files the import points at (a Go package or Java wildcard can be several). */
  targets: string[]
}

export interface TsConfig {
  dir: string
  baseUrl?: string
  paths?: Record<string, string[]>
  /** The config it extends, as written (inherited by resolve-js.ts when it is in the project). */
  extends?: string
}

export interface ProjectLayout {
  files: ReadonlySet<string>
  /** The files of each folder ('' for the root). */
  dirFiles: ReadonlyMap<string, readonly string[]>
  /** tsconfig/jsconfig files that say how to resolve bare imports, by path. */
  tsconfigs: ReadonlyMap<string, TsConfig>
  /** Workspace packages by their package.json name. */
  packages: ReadonlyMap<string, { dir: string; entries: string[] }>
  /** go.mod modules, longest module path first. */
  goModules: ReadonlyArray<{ dir: string; module: string }>
  /** Java files by fully qualified type name, and by package. */
  javaTypes: ReadonlyMap<string, string>
  javaPackages: ReadonlyMap<string, readonly string[]>
  /** Folders holding a Cargo.toml. */
  cargoDirs: ReadonlySet<string>
  /** Folders Python imports are resolved from: the root, src/ and every setup.py/pyproject.toml folder. */
  pythonRoots: ReadonlySet<string>
}

export function projectLayout(files: ReadonlyMap<string, FileFacts>): ProjectLayout {
  const dirFiles = new Map<string, string[]>()
  const tsconfigs = new Map<string, TsConfig>()
  const packages = new Map<string, { dir: string; entries: string[] }>()
  const goModules: Array<{ dir: string; module: string }> = []
  const javaTypes = new Map<string, string>()
  const javaPackages = new Map<string, string[]>()
  const cargoDirs = new Set<string>()
  const pythonRoots = new Set<string>(['', 'src'])

  for (const [file, facts] of files) {
    const dir = parentDir(file)
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
      tsconfigs.set(file, { dir, baseUrl: config.baseUrl, paths: config.paths, extends: config.extends })
    if (base === 'Cargo.toml') cargoDirs.add(dir)
    if (base === 'setup.py' || base === 'pyproject.toml') pythonRoots.add(dir)
    if (facts.language === 'java' && facts.package !== undefined) {
      javaTypes.set(`${facts.package}.${posix.basename(file, '.java')}`, file)
      const pkg = javaPackages.get(facts.package) ?? []
      pkg.push(file)
      javaPackages.set(facts.package, pkg)
    }
  }
  goModules.sort((a, b) => b.module.length - a.module.length)
  const fileSet = new Set(files.keys())
  return {
    files: fileSet,
    dirFiles,
    tsconfigs,
    packages,
    goModules,
    javaTypes,
    javaPackages,
    cargoDirs,
    pythonRoots,
  }
}

/** The first candidate that is a project file. */
export function existing(layout: ProjectLayout, candidates: string[]): string | undefined {
  return candidates.find((c) => layout.files.has(c))
}

/** A path's folder, '' for the root. */
export function parentDir(p: string): string {
  const d = posix.dirname(p)
  return d === '.' || d === '/' ? '' : d
}
