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

/**
 * The top-level module of a file under src/main: its folder (`src/main/agent/loop.ts` → `agent`), or
 * the file itself when it sits directly under src/main (`src/main/version.ts` → `version`); null
 * outside src/main.
 */
function moduleOf(file: string): string | null {
  const m = /^src\/main\/([^/]+?)(\.tsx?)?(\/|$)/.exec(file)
  return m ? m[1] : null
}

/** Which top-level module imports which, each edge with the imports that make it (`file imports "spec"`). */
function moduleEdges(sources: Map<string, string>): Map<string, Map<string, string[]>> {
  const known = new Set(sources.keys())
  const edges = new Map<string, Map<string, string[]>>()
  for (const [file, source] of sources) {
    const from = moduleOf(file)
    if (from === null) continue
    if (!edges.has(from)) edges.set(from, new Map())
    for (const specifier of importSpecifiers(source)) {
      const target = resolveImport(file, specifier, known)
      const to = target === null ? null : moduleOf(target)
      if (to === null || to === from) continue
      const uses = edges.get(from)!
      uses.set(to, [...(uses.get(to) ?? []), `${file} imports "${specifier}"`])
    }
  }
  return edges
}

/** Strongly connected groups of more than one module (Tarjan): each is one or more cycles. */
function stronglyConnected(edges: Map<string, Map<string, string[]>>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const groups: string[][] = []
  const visit = (v: string): void => {
    index.set(v, index.size)
    low.set(v, index.get(v)!)
    stack.push(v)
    for (const w of [...(edges.get(v)?.keys() ?? [])].sort()) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const group: string[] = []
    for (let w = stack.pop(); ; w = stack.pop()) {
      group.push(w!)
      if (w === v) break
    }
    if (group.length > 1) groups.push(group.sort())
  }
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v)
  return groups.sort((a, b) => a[0].localeCompare(b[0]))
}

/** The shortest cycle from `start` back to itself inside `group`, as `a → b → a`, with an import per step. */
function nameCycle(start: string, group: string[], edges: Map<string, Map<string, string[]>>): string {
  const inGroup = new Set(group)
  const cameFrom = new Map<string, string>()
  const queue = [start]
  while (queue.length > 0) {
    const v = queue.shift()!
    const next = [...(edges.get(v)?.keys() ?? [])].filter((w) => inGroup.has(w)).sort()
    if (next.includes(start)) {
      const path = [start]
      for (let w: string | undefined = v; w !== undefined && w !== start; w = cameFrom.get(w))
        path.splice(1, 0, w)
      path.push(start)
      const why = path.slice(1).map((to, i) => edges.get(path[i])!.get(to)![0])
      return `${path.join(' → ')} (${why.join('; ')})`
    }
    for (const w of next) {
      if (w !== start && !cameFrom.has(w)) {
        cameFrom.set(w, v)
        queue.push(w)
      }
    }
  }
  return start
}

/**
 * Cycles between top-level modules once the `pending` imports (each `from → to`) are set aside, and
 * pending entries that no longer exist (so the list only shrinks).
 */
function findModuleCycles(edges: Map<string, Map<string, string[]>>, pending: readonly string[]): string[] {
  const problems: string[] = []
  const kept = new Map([...edges].map(([from, uses]) => [from, new Map(uses)]))
  for (const entry of pending) {
    const [from, to] = entry.split(' → ')
    if (!kept.get(from)?.delete(to))
      problems.push(`${entry} is listed as pending but no longer imported: remove it`)
  }
  const cycles = stronglyConnected(kept).map(
    (group) => `cycle between modules ${group.join(', ')}: ${nameCycle(group[0], group, kept)}`,
  )
  return [...cycles, ...problems]
}

/**
 * Imports that still close a cycle, set aside while they are being taken apart. Each entry is
 * one direction of a cycle (`from → to`); the list only shrinks: an entry no longer imported
 * fails the test too, so remove it with the import.
 */
const PENDING_CYCLES: string[] = []

/**
 * The table in docs/architecture.md ("Which module may use which"): each row is a module of
 * src/main and the modules it may import, between the module-uses markers.
 */
function allowedUses(markdown: string): Map<string, Set<string>> {
  const block = /<!-- module-uses:start -->([\s\S]*?)<!-- module-uses:end -->/.exec(markdown)
  if (!block)
    throw new Error('docs/architecture.md has no module-uses table (<!-- module-uses:start --> … end)')
  const allowed = new Map<string, Set<string>>()
  for (const line of block[1].split('\n')) {
    const cells = line.split('|').map((c) => c.trim())
    const module = /^`([^`/]+?)(?:\.ts|\/)?`$/.exec(cells[1] ?? '')
    if (!module) continue
    const uses = [...(cells[2] ?? '').matchAll(/`([^`/]+?)(?:\.ts|\/)?`/g)].map((m) => m[1])
    allowed.set(module[1], new Set(uses))
  }
  return allowed
}

/** Imports the table does not allow, and rows or uses that name no module. */
function unlistedUses(
  edges: Map<string, Map<string, string[]>>,
  allowed: Map<string, Set<string>>,
): string[] {
  const problems: string[] = []
  for (const [from, uses] of [...edges].sort()) {
    const may = allowed.get(from)
    if (!may) {
      problems.push(`module ${from} has no row in docs/architecture.md's module table`)
      continue
    }
    for (const [to, why] of uses) {
      if (!may.has(to)) problems.push(`${from} may not use ${to} (docs/architecture.md), yet ${why[0]}`)
    }
  }
  for (const [from, may] of allowed) {
    if (!edges.has(from))
      problems.push(`docs/architecture.md lists module ${from}, which is not under src/main`)
    for (const to of may)
      if (!edges.has(to)) problems.push(`docs/architecture.md lets ${from} use ${to}, which is not a module`)
  }
  return problems
}

describe('modules of src/main', () => {
  const files = sourceFiles(join(repoRoot, 'src')).filter((f) => !/\.test\.tsx?$/.test(f))
  const sources = new Map(
    files.map((path) => [relative(repoRoot, path).split('\\').join('/'), readFileSync(path, 'utf8')]),
  )
  const edges = moduleEdges(sources)

  it('import each other without cycles (but the pending ones)', () => {
    expect(edges.size).toBeGreaterThan(10)
    expect(findModuleCycles(edges, PENDING_CYCLES)).toEqual([])
  })

  it('use only the modules docs/architecture.md allows, and the table itself has no cycle', () => {
    const allowed = allowedUses(readFileSync(join(repoRoot, 'docs/architecture.md'), 'utf8'))
    expect(unlistedUses(edges, allowed)).toEqual([])
    const asEdges = new Map(
      [...allowed].map(([m, uses]) => [m, new Map([...uses].map((u) => [u, ['the table']]))]),
    )
    expect(findModuleCycles(asEdges, PENDING_CYCLES)).toEqual([])
  })

  it('finds a planted cycle, names it, and lets a pending one through', () => {
    // agent ↔ mcp as it once was (the loop ran MCP calls that asked the agent's approvals).
    const planted = new Map([
      ['src/main/agent/loop.ts', "import { run } from '../mcp/run'"],
      ['src/main/mcp/run.ts', "import { ask } from '../agent/approve'\nimport { v } from '../version'"],
      ['src/main/agent/approve.ts', ''],
      ['src/main/version.ts', "import type { T } from './tools/types'"],
      ['src/main/tools/types.ts', "import { s } from '../store/db'"],
      ['src/main/store/db.ts', "import { t } from '../tools/types'"],
    ])
    const edges = moduleEdges(planted)
    expect(findModuleCycles(edges, [])).toEqual([
      'cycle between modules agent, mcp: agent → mcp → agent (src/main/agent/loop.ts imports "../mcp/run"; src/main/mcp/run.ts imports "../agent/approve")',
      'cycle between modules store, tools: store → tools → store (src/main/store/db.ts imports "../tools/types"; src/main/tools/types.ts imports "../store/db")',
    ])
    expect(findModuleCycles(edges, ['mcp → agent', 'store → tools'])).toEqual([])
    expect(findModuleCycles(edges, ['mcp → agent', 'store → tools', 'tools → agent'])).toEqual([
      'tools → agent is listed as pending but no longer imported: remove it',
    ])
    // A longer cycle is one group, named from its first module.
    planted.set('src/main/store/db.ts', "import { l } from '../agent/loop'")
    planted.set('src/main/mcp/run.ts', "import { v } from '../version'")
    expect(findModuleCycles(moduleEdges(planted), [])).toEqual([
      'cycle between modules agent, mcp, store, tools, version: agent → mcp → version → tools → store → agent (src/main/agent/loop.ts imports "../mcp/run"; src/main/mcp/run.ts imports "../version"; src/main/version.ts imports "./tools/types"; src/main/tools/types.ts imports "../store/db"; src/main/store/db.ts imports "../agent/loop")',
    ])
  })

  it('checks imports against the table, both ways', () => {
    const table = [
      '<!-- module-uses:start -->',
      '| module | may use |',
      '| --- | --- |',
      '| `agent/` | `tools/` |',
      '| `tools/` | |',
      '| `ghost/` | `tools/` |',
      '<!-- module-uses:end -->',
    ].join('\n')
    const edges = moduleEdges(
      new Map([
        ['src/main/agent/loop.ts', "import { r } from '../tools/read'\nimport { s } from '../store/db'"],
        ['src/main/tools/read.ts', ''],
        ['src/main/store/db.ts', ''],
      ]),
    )
    expect(unlistedUses(edges, allowedUses(table))).toEqual([
      'agent may not use store (docs/architecture.md), yet src/main/agent/loop.ts imports "../store/db"',
      "module store has no row in docs/architecture.md's module table",
      'docs/architecture.md lists module ghost, which is not under src/main',
    ])
  })
})

// The store owns every table's SQL (docs/architecture.md#data): outside src/main/store/ no source
// file loads SQLite, takes the store's connection or calls a statement method on a database handle.
// Tests are not scanned: a test may reach into the file to stage a fault.

const STORE_DIR = 'src/main/store/'
/** Specifiers that load SQLite itself. */
const SQLITE_PACKAGES = new Set(['better-sqlite3', 'better-sqlite3-napi'])
/** store/ modules that hand out SQLite: the binding with its types, and the open connection. */
const STORE_SQLITE_MODULES = new Set(['src/main/store/sqlite', 'src/main/store/handle'])
const DB_METHODS = new Set(['prepare', 'exec', 'transaction', 'pragma', 'backup'])
/** A receiver that is a database handle: `db`, `this.db`, `fooDb`, `database`, `databaseOf(store)`. */
const DB_RECEIVER = /(?:^|\.)\w*(?:db|Db|DB|database|Database)$|^databaseOf\(/

/**
 * Files that still use SQLite outside store/, each until the move named beside it lands. Every
 * entry must still be a violation (a file that moved leaves the list: see the test below).
 */
const PENDING_STORE_MOVES: Record<string, string> = {
  // Empty: every table's SQL is in src/main/store/. A file listed here while it moves its SQL in
  // is let through, and the next case fails once it no longer needs to be.
}

/** SQLite uses of one file outside store/: imports of SQLite or the connection, statement calls on a handle. */
function findSqliteUses(file: string, source: string): string[] {
  if (file.startsWith(STORE_DIR)) return []
  const uses: string[] = []
  for (const specifier of importSpecifiers(source)) {
    const target = specifier.startsWith('.')
      ? posix.join(posix.dirname(file), specifier).replace(/\.ts$/, '')
      : null
    if (SQLITE_PACKAGES.has(specifier) || (target !== null && STORE_SQLITE_MODULES.has(target)))
      uses.push(`${file}: imports "${specifier}" — only src/main/store/ opens SQLite or holds its connection`)
  }
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true)
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      DB_METHODS.has(node.expression.name.text)
    ) {
      const receiver = node.expression.expression.getText(tree)
      if (DB_RECEIVER.test(receiver)) {
        const line = tree.getLineAndCharacterOfPosition(node.getStart(tree)).line + 1
        uses.push(
          `${file}:${line}: calls ${receiver}.${node.expression.name.text}() — SQL belongs in a repository in src/main/store/`,
        )
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(tree)
  return uses
}

describe('the store owns SQLite', () => {
  const sources = sourceFiles(join(repoRoot, 'src/main'))
    .filter((f) => !/\.test\.tsx?$/.test(f))
    .map((path) => [relative(repoRoot, path).split('\\').join('/'), readFileSync(path, 'utf8')] as const)
  const usesByFile = new Map(sources.map(([file, source]) => [file, findSqliteUses(file, source)]))

  it('nothing outside src/main/store/ uses SQLite, but the files listed in PENDING_STORE_MOVES', () => {
    expect(sources.length).toBeGreaterThan(100)
    const unlisted = [...usesByFile]
      .filter(([file]) => !(file in PENDING_STORE_MOVES))
      .flatMap(([, uses]) => uses)
    expect(unlisted).toEqual([])
  })

  it('lists no file that has moved: each pending file still uses SQLite', () => {
    const moved = Object.keys(PENDING_STORE_MOVES).filter((file) => (usesByFile.get(file) ?? []).length === 0)
    expect(moved, 'take these off PENDING_STORE_MOVES').toEqual([])
  })

  it('finds each kind of use, naming the file, and passes the store and what is not a database', () => {
    const violating = [
      "import Database from 'better-sqlite3'",
      "import type { SqliteDatabase } from '../store/sqlite'",
      "import { databaseOf } from '../store/handle'",
      "store.db.prepare('SELECT 1').get()",
      "databaseOf(store).exec('VACUUM')",
      'const run = this.db.transaction(() => 1)',
      "indexDb.pragma('journal_mode')",
    ].join('\n')
    expect(findSqliteUses('src/main/session/x.ts', violating)).toEqual([
      'src/main/session/x.ts: imports "better-sqlite3" — only src/main/store/ opens SQLite or holds its connection',
      'src/main/session/x.ts: imports "../store/sqlite" — only src/main/store/ opens SQLite or holds its connection',
      'src/main/session/x.ts: imports "../store/handle" — only src/main/store/ opens SQLite or holds its connection',
      'src/main/session/x.ts:4: calls store.db.prepare() — SQL belongs in a repository in src/main/store/',
      'src/main/session/x.ts:5: calls databaseOf(store).exec() — SQL belongs in a repository in src/main/store/',
      'src/main/session/x.ts:6: calls this.db.transaction() — SQL belongs in a repository in src/main/store/',
      'src/main/session/x.ts:7: calls indexDb.pragma() — SQL belongs in a repository in src/main/store/',
    ])
    expect(findSqliteUses('src/main/store/events.ts', violating)).toEqual([])
    const innocent = [
      "import type { Store } from '../store/types'",
      '/^a+$/.exec(text)',
      "// db.prepare('in a comment')",
      "store.appendEvent(id, { type: 'user.message', text: 'db.exec()' })",
    ].join('\n')
    expect(findSqliteUses('src/main/session/y.ts', innocent)).toEqual([])
  })
})
