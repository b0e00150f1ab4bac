import { readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join, posix, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

// The layering rules of docs/architecture.md (the folder says where code may run), checked by reading every import under src/. ESLint's
// no-restricted-imports says the same thing while editing; this test is the one a disabled lint rule
// cannot silence, and it also covers dynamic import() and require().

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..')

const ELECTRON_HOSTS = ['src/main/hosts/electron/', 'src/main/electron-main.ts', 'src/preload/']
const NODE_BUILTINS = new Set(builtinModules)

const isUnder = (file: string, prefixes: string[]): boolean =>
  prefixes.some((prefix) => (prefix.endsWith('/') ? file.startsWith(prefix) : file === prefix))

const isNodeBuiltin = (specifier: string): boolean =>
  specifier.startsWith('node:') || NODE_BUILTINS.has(specifier.split('/')[0])

const isElectron = (specifier: string): boolean =>
  specifier === 'electron' || specifier.startsWith('electron/')

/** The module specifiers a source file imports: static, type-only, re-exports, import() and require(). */
function importSpecifiers(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((ref) => ref.fileName)
}

/**
 * Layering violations of one file. `file` is repo-relative with forward slashes; relative specifiers
 * are resolved against it, so `../../main/x` from src/renderer counts as importing src/main.
 */
function findLayeringViolations(file: string, source: string): string[] {
  const violations: string[] = []
  for (const specifier of importSpecifiers(source)) {
    const target = specifier.startsWith('.') ? posix.join(posix.dirname(file), specifier) : null
    const into = (dir: string): boolean => target !== null && (target === dir || target.startsWith(`${dir}/`))
    const say = (why: string): void => {
      violations.push(`${file}: imports "${specifier}" — ${why}`)
    }

    if (isElectron(specifier) && !isUnder(file, ELECTRON_HOSTS)) {
      say('only src/main/hosts/electron, src/main/electron-main.ts and src/preload may import electron')
    }
    if (file.startsWith('src/shared/')) {
      if (isNodeBuiltin(specifier)) say('src/shared runs in the renderer too: no Node builtins')
      if (into('src/main') || into('src/renderer') || into('src/preload')) {
        say('src/shared imports nothing from the other layers')
      }
    }
    if (file.startsWith('src/renderer/')) {
      if (into('src/main')) say('the renderer never imports src/main; go through window.stepwise')
      if (isNodeBuiltin(specifier)) say('the renderer is sandboxed browser code: no Node builtins')
    }
    if ((file.startsWith('src/main/') || file.startsWith('src/preload/')) && into('src/renderer')) {
      say('main and preload never import src/renderer; share through src/shared')
    }
    // The core (and so the CLI) must not reach electron through the Electron host's modules either.
    if (
      !isUnder(file, ELECTRON_HOSTS) &&
      (into('src/main/hosts/electron') || target === 'src/main/electron-main')
    ) {
      say('the core never imports the Electron host')
    }
  }
  return violations
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.(ts|tsx|mts|cts)$/.test(entry.name) ? [path] : []
  })
}

describe('layering', () => {
  it('holds for every source file under src/', () => {
    const files = sourceFiles(join(repoRoot, 'src'))
    expect(files.length).toBeGreaterThan(5)
    const violations = files.flatMap((path) =>
      findLayeringViolations(relative(repoRoot, path).split('\\').join('/'), readFileSync(path, 'utf8')),
    )
    expect(violations).toEqual([])
  })

  it('reads static, type-only, re-exported, dynamic and required imports, not comments', () => {
    const source = [
      "import { a } from './a'",
      "import type { B } from '../b'",
      "export * from './c'",
      "import './side-effect.css'",
      "const d = await import('./d')",
      "const e = require('e')",
      "// import { f } from 'f'",
    ].join('\n')
    expect(importSpecifiers(source)).toEqual(['./a', '../b', './c', './side-effect.css', './d', 'e'])
  })

  it('reports each kind of violation', () => {
    expect(findLayeringViolations('src/main/tools/read.ts', "import { app } from 'electron'")).toEqual([
      'src/main/tools/read.ts: imports "electron" — only src/main/hosts/electron, src/main/electron-main.ts and src/preload may import electron',
    ])
    expect(
      findLayeringViolations(
        'src/shared/protocol/x.ts',
        "import fs from 'node:fs'\nimport path from 'path'\nimport { t } from '../../main/tools/types'",
      ),
    ).toEqual([
      'src/shared/protocol/x.ts: imports "node:fs" — src/shared runs in the renderer too: no Node builtins',
      'src/shared/protocol/x.ts: imports "path" — src/shared runs in the renderer too: no Node builtins',
      'src/shared/protocol/x.ts: imports "../../main/tools/types" — src/shared imports nothing from the other layers',
    ])
    expect(
      findLayeringViolations('src/renderer/src/App.tsx', "const m = await import('../../main/agent')"),
    ).toEqual([
      'src/renderer/src/App.tsx: imports "../../main/agent" — the renderer never imports src/main; go through window.stepwise',
    ])
    expect(
      findLayeringViolations('src/main/agent/loop.ts', "import { App } from '../../renderer/src/App'"),
    ).toEqual([
      'src/main/agent/loop.ts: imports "../../renderer/src/App" — main and preload never import src/renderer; share through src/shared',
    ])
    expect(
      findLayeringViolations('src/main/hosts/cli/main.ts', "import { bindIpc } from '../electron/ipc'"),
    ).toEqual([
      'src/main/hosts/cli/main.ts: imports "../electron/ipc" — the core never imports the Electron host',
    ])
  })

  it('allows what the layers are for', () => {
    const allowed: Array<[string, string]> = [
      [
        'src/main/hosts/electron/window.ts',
        "import { BrowserWindow } from 'electron'\nimport { x } from './protocol'",
      ],
      [
        'src/main/electron-main.ts',
        "import { app } from 'electron'\nimport { bindIpc } from './hosts/electron/ipc'",
      ],
      [
        'src/preload/index.ts',
        "import { contextBridge } from 'electron'\nimport { C } from '../main/hosts/electron/channels'",
      ],
      ['src/main/store/db.ts', "import Database from 'better-sqlite3'\nimport { join } from 'node:path'"],
      [
        'src/renderer/src/App.tsx',
        "import { reduce } from '../../shared/reducer'\nimport type { StepwiseApi } from '../../preload/api'",
      ],
      ['src/shared/protocol/index.ts', "import { z } from 'zod'\nexport * from './events'"],
    ]
    expect(allowed.flatMap(([file, source]) => findLayeringViolations(file, source))).toEqual([])
  })
})

/** The repo-relative file a relative specifier names, among `known` files; null for packages. */
function resolveImport(from: string, specifier: string, known: Set<string>): string | null {
  if (!specifier.startsWith('.')) return null
  const base = posix.join(posix.dirname(from), specifier)
  const candidates = [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`, base]
  return candidates.find((c) => known.has(c)) ?? null
}

/**
 * Import cycles in a graph of `file → source`, each as `a → b → a`. A cycle makes module
 * order matter (a value read before its module ran is undefined) and two modules one unit.
 */
function findImportCycles(sources: Map<string, string>): string[] {
  const known = new Set(sources.keys())
  const edges = new Map(
    [...sources].map(([file, source]) => [
      file,
      importSpecifiers(source)
        .map((s) => resolveImport(file, s, known))
        .filter((t): t is string => t !== null),
    ]),
  )
  const cycles: string[] = []
  const done = new Set<string>()
  const stack: string[] = []
  const visit = (file: string): void => {
    stack.push(file)
    for (const next of edges.get(file) ?? []) {
      const at = stack.indexOf(next)
      if (at >= 0) cycles.push([...stack.slice(at), next].join(' → '))
      else if (!done.has(next)) visit(next)
    }
    stack.pop()
    done.add(file)
  }
  for (const file of [...known].sort()) if (!done.has(file)) visit(file)
  return cycles
}

describe('import cycles', () => {
  it('there are none among the modules under src/', () => {
    const files = sourceFiles(join(repoRoot, 'src')).filter((f) => !/\.test\.tsx?$/.test(f))
    const sources = new Map(
      files.map((path) => [relative(repoRoot, path).split('\\').join('/'), readFileSync(path, 'utf8')]),
    )
    expect(sources.size).toBeGreaterThan(100)
    expect(findImportCycles(sources)).toEqual([])
  })

  it('finds a cycle through folders, index files and type-only imports', () => {
    const sources = new Map([
      ['src/main/a.ts', "import { b } from './b'"],
      ['src/main/b.ts', "import type { C } from './c'"],
      ['src/main/c/index.ts', "import { a } from '../a'\nimport fs from 'node:fs'"],
      ['src/main/d.ts', "import { a } from './a'"],
    ])
    expect(findImportCycles(sources)).toEqual([
      'src/main/a.ts → src/main/b.ts → src/main/c/index.ts → src/main/a.ts',
    ])
    sources.set('src/main/c/index.ts', "import fs from 'node:fs'")
    expect(findImportCycles(sources)).toEqual([])
  })
})
