import { posix, type ProjectLayout, type Resolution } from './resolve-layout'

/*
 * Go imports (resolve.ts): a path under one of the project's go.mod modules is that
 * package's folder, every non-test .go file in it; a path whose first part has no dot
 * is the standard library.
 */

export function resolveGo(layout: ProjectLayout, from: string, source: string): Resolution {
  for (const { dir, module } of layout.goModules) {
    if (source !== module && !source.startsWith(module + '/')) continue
    const pkgDir = posix.join(dir, source.slice(module.length + 1))
    const targets = (layout.dirFiles.get(pkgDir === '.' ? '' : pkgDir) ?? []).filter(
      (f) => f.endsWith('.go') && !f.endsWith('_test.go') && f !== from,
    )
    return { kind: 'internal', targets }
  }
  return { kind: source.split('/')[0].includes('.') ? 'external' : 'builtin', targets: [] }
}
