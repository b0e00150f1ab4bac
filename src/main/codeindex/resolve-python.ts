import { PYTHON_STDLIB } from './python-stdlib'
import { existing, parentDir, posix, type ProjectLayout, type Resolution } from './resolve-layout'
import type { ImportFact } from './types'

/*
 * Python imports (resolve.ts): absolute ones from the project's source roots,
 * relative ones (`from .. import x`) from the importing file's package; a module is
 * a .py, a package's __init__.py or a .pyi stub. The standard library is builtin.
 */

export function resolvePython(layout: ProjectLayout, from: string, imp: ImportFact): Resolution {
  let roots: string[] = [...layout.pythonRoots]
  if (imp.level) {
    let dir = parentDir(from)
    for (let i = 1; i < imp.level; i++) dir = parentDir(dir)
    roots = [dir]
  }
  const targets = new Set<string>()
  // `from pkg import mod` may name submodules; `from mod import func` names the module's contents.
  for (const name of imp.names) {
    if (name === '*') continue
    const sub = pythonModule(layout, imp.source ? `${imp.source}.${name}` : name, roots)
    if (sub) targets.add(sub)
  }
  if (targets.size === 0 && imp.source) {
    const mod = pythonModule(layout, imp.source, roots)
    if (mod) targets.add(mod)
  }
  if (targets.size === 0 && imp.level) {
    const init = existing(layout, [posix.join(roots[0], '__init__.py')])
    if (init && init !== from) targets.add(init)
  }
  if (targets.size > 0 || imp.level) return { kind: 'internal', targets: [...targets] }
  const top = imp.source.split('.')[0]
  return { kind: PYTHON_STDLIB.has(top) ? 'builtin' : 'external', targets: [] }
}

function pythonModule(layout: ProjectLayout, dotted: string, roots: Iterable<string>): string | undefined {
  const rel = dotted.replace(/\./g, '/')
  for (const root of roots) {
    const base = posix.join(root, rel)
    const hit = existing(layout, [`${base}.py`, `${base}/__init__.py`, `${base}.pyi`])
    if (hit) return hit
  }
  return undefined
}
