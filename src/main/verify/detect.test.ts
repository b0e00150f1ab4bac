import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { detectProjectCommands, narrowTests, type ProjectCommand } from './detect'

function project(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-detect-'))
  onTestFinished(() => fs.rmSync(root, { recursive: true, force: true }))
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), content)
  }
  return root
}

const pkg = (scripts: Record<string, string>) => JSON.stringify({ name: 'x', scripts })
const commandsOf = (root: string) => {
  const found = detectProjectCommands(root)
  return {
    test: found.test?.command,
    build: found.build?.command,
    lint: found.lint?.command,
    kind: found.test?.kind,
  }
}

describe('detectProjectCommands', () => {
  it('reads package.json scripts with the package manager of the lock file', () => {
    const scripts = { test: 'vitest run', build: 'tsc -b', lint: 'eslint .' }
    expect(commandsOf(project({ 'package.json': pkg(scripts) }))).toEqual({
      test: 'npm test',
      build: 'npm run build',
      lint: 'npm run lint',
      kind: 'vitest',
    })
    expect(commandsOf(project({ 'package.json': pkg(scripts), 'pnpm-lock.yaml': '' })).test).toBe('pnpm test')
    expect(commandsOf(project({ 'package.json': pkg(scripts), 'yarn.lock': '' })).build).toBe(
      'yarn run build',
    )
    expect(commandsOf(project({ 'package.json': pkg({ test: 'jest --ci' }) })).kind).toBe('jest')
    expect(commandsOf(project({ 'package.json': pkg({ test: 'node --test test/' }) })).kind).toBe('node-test')
    expect(commandsOf(project({ 'package.json': pkg({ typecheck: 'tsc --noEmit' }) })).build).toBe(
      'npm run typecheck',
    )
  })

  it('ignores npm’s placeholder test script and falls through to other manifests', () => {
    const root = project({
      'package.json': pkg({ test: 'echo "Error: no test specified" && exit 1' }),
      Makefile: 'build:\n\tcc main.c\ncheck: build\n\t./run-tests\nVAR := x\n',
    })
    expect(commandsOf(root)).toEqual({
      test: 'make check',
      build: 'make build',
      lint: undefined,
      kind: 'make',
    })
  })

  it('reads go.mod, Cargo.toml, pom.xml and pytest configuration', () => {
    expect(commandsOf(project({ 'go.mod': 'module x\n' }))).toEqual({
      test: 'go test ./...',
      build: 'go build ./...',
      lint: 'go vet ./...',
      kind: 'go',
    })
    expect(commandsOf(project({ 'Cargo.toml': '[package]\n' }))).toEqual({
      test: 'cargo test',
      build: 'cargo build',
      lint: 'cargo clippy',
      kind: 'cargo',
    })
    expect(commandsOf(project({ 'pom.xml': '<project/>' }))).toEqual({
      test: 'mvn -q test',
      build: 'mvn -q compile',
      lint: undefined,
      kind: 'maven',
    })
    for (const files of <Record<string, string>[]>[
      { 'pytest.ini': '[pytest]\n' },
      { 'pyproject.toml': '[tool.pytest.ini_options]\n' },
      { 'setup.cfg': '[tool:pytest]\n' },
      { 'tests/test_x.py': 'def test_x(): pass\n' },
    ])
      expect(commandsOf(project(files)).test).toBe('python3 -m pytest -rfE')
    expect(commandsOf(project({ 'README.md': '# nothing' }))).toEqual({
      test: undefined,
      build: undefined,
      lint: undefined,
      kind: undefined,
    })
  })
})

describe('manifests a command replaced', () => {
  it('skips a FIFO or a folder where package.json or the Makefile should be, without blocking', () => {
    const root = project({ 'go.mod': 'module x\n' })
    execFileSync('mkfifo', [path.join(root, 'package.json')])
    fs.mkdirSync(path.join(root, 'Makefile'))
    expect(commandsOf(root).test).toBe('go test ./...')
  })
})

describe('narrowTests', () => {
  const cmd = (command: string, kind: ProjectCommand['kind']): ProjectCommand => ({
    command,
    kind,
    source: 'x',
  })
  it('passes path and filter the way each runner takes them', () => {
    const opts = { path: 'src/a b.test.ts', filter: "adds 'two'" }
    expect(narrowTests(cmd('npm test', 'vitest'), opts).command).toBe(
      `npm test -- 'src/a b.test.ts' -t 'adds '\\''two'\\'''`,
    )
    expect(narrowTests(cmd('pnpm test', 'jest'), { filter: 'adds' }).command).toBe('pnpm test -t adds')
    expect(
      narrowTests(cmd('npm test', 'node-test'), { path: 'test/a.test.mjs', filter: 'adds' }).command,
    ).toBe('npm test -- test/a.test.mjs --test-name-pattern=adds')
    expect(narrowTests(cmd('go test ./...', 'go'), { path: 'pkg/calc', filter: 'TestAdd' }).command).toBe(
      'go test ./pkg/calc/... -run TestAdd',
    )
    expect(narrowTests(cmd('cargo test', 'cargo'), { path: 'tests/api.rs', filter: 'adds' }).command).toBe(
      'cargo test --test api adds',
    )
    expect(
      narrowTests(cmd('python3 -m pytest -rfE', 'pytest'), { path: 'tests', filter: 'add' }).command,
    ).toBe('python3 -m pytest -rfE tests -k add')
    expect(narrowTests(cmd('mvn -q test', 'maven'), { filter: 'MathTest' }).command).toBe(
      'mvn -q test -Dtest=MathTest',
    )
    expect(narrowTests(cmd('make test', 'make'), { filter: 'x' })).toEqual({
      command: 'make test',
      notes: ['x is not a runner Stepwise knows how to narrow; ran the whole test command'],
    })
  })
})
