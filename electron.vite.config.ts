import { chmodSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'electron-vite'
import type { Plugin, Rolldown } from 'vite'
import { builtTablePath, ENCODINGS, tableBytes } from './src/main/context/token-tables'
import { launcherHeader } from './src/main/hosts/cli/launcher'

const { version } = JSON.parse(readFileSync(resolve('package.json'), 'utf8')) as { version: string }

/** The `stepwise` CLI's entry chunk (out/main/cli.js) in a finished bundle. */
function cliEntry(bundle: Rolldown.OutputBundle): Rolldown.OutputChunk | undefined {
  return Object.values(bundle).find(
    (c): c is Rolldown.OutputChunk => c.type === 'chunk' && c.isEntry && c.name === 'cli',
  )
}

/**
 * Guards the `stepwise` CLI bundle: it runs on plain Node, where importing `electron` tries to download
 * the binary and throws, so the build fails if any chunk the CLI loads imports it (or the Electron
 * entry). Then marks out/main/cli.js executable, since `npx` and `npm install -g` run it directly.
 */
function cliBundleGuard(): Plugin {
  return {
    name: 'stepwise:cli-bundle-guard',
    apply: 'build',
    generateBundle(_options, bundle) {
      const cli = cliEntry(bundle)
      if (!cli) return
      const seen = new Set<string>()
      const visit = (fileName: string): void => {
        if (seen.has(fileName)) return
        seen.add(fileName)
        const chunk = bundle[fileName]
        if (!chunk || chunk.type !== 'chunk') return
        if (chunk.isEntry && chunk.name === 'electron-main')
          this.error(`the CLI bundle imports the Electron entry`)
        const bad = chunk.imports.find((id) => id === 'electron' || id.startsWith('electron/'))
        if (bad) this.error(`the CLI bundle imports "${bad}" via ${fileName}; keep electron out of the core`)
        chunk.imports.forEach(visit)
        chunk.dynamicImports.forEach(visit)
      }
      visit(cli.fileName)
    },
    writeBundle(options, bundle) {
      const cli = cliEntry(bundle)
      if (cli && options.dir) chmodSync(resolve(options.dir, cli.fileName), 0o755)
    },
  }
}

/**
 * The CLI starts with the lines that launch it (src/main/hosts/cli/launcher.ts says why). Put in
 * the finished bundle: a banner or a rendered chunk is transpiled again for the target, which
 * prints the code anew and drops the comment the shell's line hides in.
 */
function cliLauncher(): Plugin {
  return {
    name: 'stepwise:cli-launcher',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const cli = cliEntry(bundle)
      if (cli) cli.code = `${launcherHeader()}\n${cli.code}`
    },
  }
}

/**
 * The tokenizer's rank tables beside the main bundle, where a session reads them instead
 * of compiling the library's modules (src/main/context/token-tables.ts says why).
 */
function tokenTables(): Plugin {
  return {
    name: 'stepwise:token-tables',
    apply: 'build',
    generateBundle() {
      for (const encoding of ENCODINGS)
        this.emitFile({ type: 'asset', fileName: builtTablePath(encoding), source: tableBytes(encoding) })
    },
  }
}

export default defineConfig({
  main: {
    plugins: [cliBundleGuard(), cliLauncher(), tokenTables()],
    build: {
      // One build, two programs: the Electron main process and the `stepwise` CLI. The CLI runs on
      // plain Node 20, so target that instead of Electron's newer Node.
      target: 'node20.19',
      // Runtime dependencies stay external (electron-vite's default): native better-sqlite3 cannot
      // be bundled, and `npm install` of the package provides them. Except the ones every process
      // loads at start as many small ES modules (zod alone is 95), each resolved, read and linked
      // on its own: in the bundle they cost each `stepwise` process 60–90 ms less before its first
      // request (alternated tiny-repo sessions, docs/benchmarks.md). Libraries that bring their own
      // copy of zod (the MCP SDK) keep it, and get only their own schemas back.
      externalizeDeps: { exclude: ['zod', 'diff', 'commander'] },
      rolldownOptions: {
        input: {
          'electron-main': resolve('src/main/electron-main.ts'),
          cli: resolve('src/main/hosts/cli/entry.ts'),
          // The code index parses in worker threads; the pool looks for this file beside the entry.
          'index-worker': resolve('src/main/codeindex/worker.ts'),
        },
        output: {
          entryFileNames: '[name].js',
        },
      },
    },
  },
  preload: {
    build: {
      rolldownOptions: {
        input: { index: resolve('src/preload/index.ts') },
        // A sandboxed preload is not an ES module: Electron runs it as a CommonJS script.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve('src/renderer'),
    publicDir: resolve('src/renderer/public'),
    plugins: [react()],
    define: { __APP_VERSION__: JSON.stringify(version) },
    build: {
      minify: true,
      rolldownOptions: {
        input: { index: resolve('src/renderer/index.html') },
      },
    },
  },
})
