import { z } from 'zod'
import fs from 'node:fs'
import path from 'node:path'

/*
 * The project's own test, build and lint commands, read from its manifests:
 * package.json scripts (npm, pnpm or yarn by lock file), Makefile targets,
 * go.mod, Cargo.toml, pom.xml, pytest configuration. The first source that
 * declares a command wins, in that order.
 */

/** Which output parser reads the command's result. */
export type RunnerKind =
  'vitest' | 'jest' | 'node-test' | 'go' | 'cargo' | 'pytest' | 'maven' | 'make' | 'script'

export interface ProjectCommand {
  command: string
  /** Where it came from, for messages: `package.json script "test"`, `go.mod`. */
  source: string
  kind: RunnerKind
  /** The script is a single test-runner invocation (vitest, jest, node --test), so arguments can be appended. */
  appendable?: boolean
}

export interface ProjectCommands {
  test?: ProjectCommand
  build?: ProjectCommand
  lint?: ProjectCommand
}

export const LOOKED_FOR =
  'package.json scripts (test, build, typecheck, lint), Makefile targets (test, check, build, lint), go.mod, Cargo.toml, pom.xml, and pytest configuration (pytest.ini, pyproject.toml, setup.cfg, tox.ini, conftest.py, tests/)'

export function detectProjectCommands(root: string): ProjectCommands {
  const found: ProjectCommands = {}
  for (const source of [fromPackageJson, fromMakefile, fromGo, fromCargo, fromMaven, fromPytest]) {
    const more = source(root)
    found.test ??= more.test
    found.build ??= more.build
    found.lint ??= more.lint
  }
  return found
}

/**
 * A project file, when it is a regular one of sane size. Commands can replace it: a FIFO named
 * `package.json` would block this host-side read forever, a device never end.
 */
function read(root: string, file: string): string | null {
  let fd: number | undefined
  try {
    fd = fs.openSync(path.join(root, file), fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0))
    const st = fs.fstatSync(fd)
    return st.isFile() && st.size <= 8 * 1024 * 1024 ? fs.readFileSync(fd, 'utf8') : null
  } catch {
    return null
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

const exists = (root: string, file: string) => fs.existsSync(path.join(root, file))

const NPM_DEFAULT_TEST = /no test specified/

/** The fields of package.json read here; a field of another type counts as absent. */
const packageJson = z.object({
  scripts: z.record(z.string(), z.string()).optional().catch(undefined),
  packageManager: z.string().optional().catch(undefined),
})

function fromPackageJson(root: string): ProjectCommands {
  const text = read(root, 'package.json')
  if (text === null) return {}
  let pkg
  try {
    pkg = packageJson.parse(JSON.parse(text))
  } catch {
    return {}
  }
  const scripts = pkg.scripts ?? {}
  const packageManager = typeof pkg.packageManager === 'string' ? pkg.packageManager : ''
  const pm =
    packageManager.startsWith('pnpm') || exists(root, 'pnpm-lock.yaml')
      ? 'pnpm'
      : packageManager.startsWith('yarn') || exists(root, 'yarn.lock')
        ? 'yarn'
        : 'npm'
  const script = (name: string, kind: RunnerKind = 'script'): ProjectCommand => ({
    command: name === 'test' ? `${pm} test` : `${pm} run ${name}`,
    source: `package.json script "${name}" (${scripts[name]})`,
    kind,
  })
  const out: ProjectCommands = {}
  const test = scripts.test
  if (test && !NPM_DEFAULT_TEST.test(test)) {
    out.test = {
      ...script('test', testRunnerOf(test)),
      appendable: /^\s*((npx\s+)?(vitest|jest)|node\b[^&|;]*\s--test)\b[^&|;]*$/.test(test),
    }
  }
  if (scripts.build) out.build = script('build')
  else if (scripts.typecheck) out.build = script('typecheck')
  else if (exists(root, 'tsconfig.json') && exists(root, 'node_modules/typescript'))
    out.build = { command: 'npx tsc --noEmit', source: 'tsconfig.json', kind: 'script' }
  if (scripts.lint)
    out.lint = { ...script('lint'), appendable: /^\s*(npx\s+)?eslint\b[^&|;]*$/.test(scripts.lint) }
  return out
}

export function testRunnerOf(script: string): RunnerKind {
  if (/\bvitest\b/.test(script)) return 'vitest'
  if (/\bjest\b/.test(script)) return 'jest'
  if (/\bnode\b[^&|;]*\s--test\b/.test(script)) return 'node-test'
  return 'script'
}

function fromMakefile(root: string): ProjectCommands {
  const text = read(root, 'Makefile') ?? read(root, 'makefile') ?? read(root, 'GNUmakefile')
  if (text === null) return {}
  const targets = new Set<string>()
  for (const m of text.matchAll(/^([A-Za-z0-9_.-]+)\s*:(?!=)/gm)) targets.add(m[1])
  const target = (...names: string[]): ProjectCommand | undefined => {
    const name = names.find((n) => targets.has(n))
    return name ? { command: `make ${name}`, source: `Makefile target "${name}"`, kind: 'make' } : undefined
  }
  return { test: target('test', 'check'), build: target('build'), lint: target('lint') }
}

function fromGo(root: string): ProjectCommands {
  if (!exists(root, 'go.mod')) return {}
  return {
    test: { command: 'go test ./...', source: 'go.mod', kind: 'go' },
    build: { command: 'go build ./...', source: 'go.mod', kind: 'go' },
    lint: { command: 'go vet ./...', source: 'go.mod', kind: 'go' },
  }
}

function fromCargo(root: string): ProjectCommands {
  if (!exists(root, 'Cargo.toml')) return {}
  return {
    test: { command: 'cargo test', source: 'Cargo.toml', kind: 'cargo' },
    build: { command: 'cargo build', source: 'Cargo.toml', kind: 'cargo' },
    lint: { command: 'cargo clippy', source: 'Cargo.toml', kind: 'cargo' },
  }
}

function fromMaven(root: string): ProjectCommands {
  if (!exists(root, 'pom.xml')) return {}
  return {
    test: { command: 'mvn -q test', source: 'pom.xml', kind: 'maven' },
    build: { command: 'mvn -q compile', source: 'pom.xml', kind: 'maven' },
  }
}

function fromPytest(root: string): ProjectCommands {
  const configured =
    exists(root, 'pytest.ini') ||
    exists(root, 'conftest.py') ||
    /\[tool\.pytest/.test(read(root, 'pyproject.toml') ?? '') ||
    /\[tool:pytest\]/.test(read(root, 'setup.cfg') ?? '') ||
    /\[pytest\]/.test(read(root, 'tox.ini') ?? '') ||
    hasPythonTests(path.join(root, 'tests')) ||
    hasPythonTests(path.join(root, 'test'))
  if (!configured) return {}
  const out: ProjectCommands = {
    test: { command: 'python3 -m pytest -rfE', source: 'pytest configuration', kind: 'pytest' },
  }
  if (exists(root, 'ruff.toml') || /\[tool\.ruff/.test(read(root, 'pyproject.toml') ?? ''))
    out.lint = { command: 'ruff check', source: 'ruff configuration', kind: 'script' }
  return out
}

function hasPythonTests(dir: string): boolean {
  try {
    return fs.readdirSync(dir).some((f) => /^test_.*\.py$|_test\.py$/.test(f))
  } catch {
    return false
  }
}

/** Quotes a word for bash when it needs it. */
export function shQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}

/**
 * The test command narrowed to a path and/or a test-name filter, the way each
 * runner takes them. `notes` says what could not be narrowed.
 */
export function narrowTests(
  cmd: ProjectCommand,
  opts: { path?: string; filter?: string },
): { command: string; notes: string[] } {
  const notes: string[] = []
  const { path: p, filter } = opts
  const q = shQuote
  const extra: string[] = []
  switch (cmd.kind) {
    case 'vitest':
    case 'jest':
      if (p) extra.push(q(p))
      if (filter) extra.push('-t', q(filter))
      break
    case 'node-test':
      if (p) extra.push(q(p))
      if (filter) extra.push(q(`--test-name-pattern=${filter}`))
      break
    case 'go': {
      const pkg = p ? `./${p.replace(/^\.\//, '').replace(/\/?(\.\.\.)?$/, '')}/...` : './...'
      return {
        command: `go test ${pkg === './/...' ? './...' : pkg}${filter ? ` -run ${q(filter)}` : ''}`,
        notes,
      }
    }
    case 'cargo': {
      const target = p && /(^|\/)tests\/([^/]+)\.rs$/.exec(p)?.[2]
      if (p && !target)
        notes.push(
          `cargo test cannot take the path "${p}"; ran every test${filter ? ' matching the filter' : ''}`,
        )
      return {
        command: `cargo test${target ? ` --test ${q(target)}` : ''}${filter ? ` ${q(filter)}` : ''}`,
        notes,
      }
    }
    case 'pytest':
      if (p) extra.push(q(p))
      if (filter) extra.push('-k', q(filter))
      return { command: [cmd.command, ...extra].join(' '), notes }
    case 'maven':
      if (p) notes.push(`mvn test cannot take a path; use filter with a test class name instead`)
      return { command: filter ? `${cmd.command} ${q(`-Dtest=${filter}`)}` : cmd.command, notes }
    default:
      if (p || filter)
        notes.push(`${cmd.source} is not a runner Stepwise knows how to narrow; ran the whole test command`)
      return { command: cmd.command, notes }
  }
  if (extra.length === 0) return { command: cmd.command, notes }
  // npm needs `--` before script arguments; pnpm and yarn pass them on as they are.
  const sep = cmd.command.startsWith('npm ') ? ' --' : ''
  return { command: `${cmd.command}${sep} ${extra.join(' ')}`, notes }
}
