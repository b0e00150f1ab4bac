import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/*
 * The real tree of bench/scale.bench.ts (issue #14): real npm packages, not
 * generated files, committed in a git repo. Installed from the registry once into
 * a cache folder and reused while its marker file says it is complete.
 *
 * Reproducible: the top-level packages are pinned, and `npm install --before`
 * resolves every transitive range as the registry stood on PUBLISHED_BEFORE, so
 * the same list gives the same tree on every machine without a lock file.
 *
 * The packages go to `packages/`, not `node_modules/`: the sandbox denies
 * node_modules/ (and dist/) at any depth, so a tree under node_modules/ would be
 * invisible to every tool. Nested node_modules/ and dist/ folders stay where npm
 * put them: denied, as they would be in a real project.
 *
 * BENCH_SCALE_TREE=<folder> measures an existing git repo instead (never modified).
 */

const TREE_VERSION = 1

/** Registry state the transitive dependencies are resolved against. */
const PUBLISHED_BEFORE = '2026-11-23T00:00:00Z'

/** About 75,000 files / 550 MB installed; ~70,000 visible to the tools. */
export const SCALE_PACKAGES: Readonly<Record<string, string>> = {
  '@angular/compiler': '21.2.26',
  '@angular/core': '21.2.26',
  '@babel/core': '7.29.13',
  '@babel/preset-env': '7.29.14',
  '@mui/icons-material': '9.5.0',
  '@mui/material': '9.5.0',
  'aws-sdk': '2.1693.0',
  'core-js': '3.51.0',
  'date-fns': '4.4.0',
  eslint: '10.15.0',
  lodash: '4.18.1',
  'lodash-es': '4.18.1',
  'monaco-editor': '0.57.0',
  next: '16.4.6',
  ramda: '0.32.0',
  rxjs: '7.8.2',
  three: '0.187.0',
  typescript: '7.0.2',
  webpack: '5.112.2',
}

export interface ScaleTree {
  root: string
  /** Files git tracks. */
  files: number
  bytes: number
  /** Where it came from: "cached", "built in N s" or "BENCH_SCALE_TREE". */
  origin: string
}

const cacheDir = (): string => path.join(os.tmpdir(), `stepwise-bench-scale-v${TREE_VERSION}`)

/** The tree, built on first use (a few minutes: npm downloads ~150 MB). */
export function ensureScaleTree(): ScaleTree {
  const given = process.env.BENCH_SCALE_TREE
  if (given) {
    const root = fs.realpathSync(given)
    return { root, ...measure(root), origin: 'BENCH_SCALE_TREE' }
  }
  const dir = cacheDir()
  const root = path.join(dir, 'tree')
  const marker = path.join(dir, 'complete.json')
  if (fs.existsSync(marker) && fs.existsSync(root))
    return { ...(JSON.parse(fs.readFileSync(marker, 'utf8')) as ScaleTree), root, origin: 'cached' }
  const started = performance.now()
  fs.rmSync(dir, { recursive: true, force: true })
  const install = path.join(dir, 'install')
  fs.mkdirSync(install, { recursive: true })
  const manifest = { name: 'scale-tree', version: '1.0.0', private: true, dependencies: SCALE_PACKAGES }
  fs.writeFileSync(path.join(install, 'package.json'), JSON.stringify(manifest, null, 2) + '\n')
  // --ignore-scripts: nothing downloaded runs here; the files are all we want.
  execFileSync(
    'npm',
    ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--before', PUBLISHED_BEFORE],
    { cwd: install, stdio: ['ignore', 'ignore', 'inherit'] },
  )
  const partial = path.join(dir, 'tree.partial')
  fs.mkdirSync(partial)
  fs.renameSync(path.join(install, 'node_modules'), path.join(partial, 'packages'))
  for (const file of ['package.json', 'package-lock.json'])
    fs.renameSync(path.join(install, file), path.join(partial, file))
  fs.rmSync(install, { recursive: true, force: true })
  // npm's own cache markers say nothing about the code; a real project would not commit them.
  fs.rmSync(path.join(partial, 'packages', '.package-lock.json'), { force: true })
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: partial, stdio: ['ignore', 'ignore', 'inherit'], env: gitEnv() })
  git('init', '-q')
  git('add', '-A')
  git('commit', '-qm', 'real npm packages')
  fs.renameSync(partial, root)
  const seconds = (performance.now() - started) / 1000
  const info: ScaleTree = { root, ...measure(root), origin: `built in ${seconds.toFixed(0)} s` }
  fs.writeFileSync(marker, JSON.stringify(info, null, 2))
  return info
}

/** A fixed identity and date: the same packages give the same commit. */
function gitEnv(): NodeJS.ProcessEnv {
  const date = '2026-01-01T00:00:00Z'
  return {
    ...process.env,
    GIT_AUTHOR_NAME: 'bench',
    GIT_AUTHOR_EMAIL: 'bench@example.com',
    GIT_COMMITTER_NAME: 'bench',
    GIT_COMMITTER_EMAIL: 'bench@example.com',
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_DATE: date,
  }
}

/** Tracked files and their sizes, from the commit (no walk of the tree). */
export function trackedFiles(root: string): Array<{ path: string; size: number }> {
  const out = execFileSync('git', ['ls-tree', '-r', '-l', '-z', 'HEAD'], {
    cwd: root,
    maxBuffer: 256 * 1024 * 1024,
    encoding: 'utf8',
  })
  // "<mode> blob <id> <size>\t<path>"
  return out
    .split('\0')
    .filter((entry) => entry !== '')
    .map((entry) => {
      const tab = entry.indexOf('\t')
      return { path: entry.slice(tab + 1), size: Number(entry.slice(0, tab).trim().split(/\s+/)[3]) || 0 }
    })
}

function measure(root: string): { files: number; bytes: number } {
  const files = trackedFiles(root)
  return { files: files.length, bytes: files.reduce((sum, f) => sum + f.size, 0) }
}
