// Module hooks that let a plain `node` child process import the core's .ts
// sources (crash tests spawn real processes and SIGKILL them). Transpile only:
// no type checking, extensionless relative imports resolved to .ts / index.ts.
import fs from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context)
  } catch (err) {
    if (!/^(\.|\/|file:)/.test(specifier)) throw err
    for (const suffix of ['.ts', '/index.ts']) {
      try {
        return await next(specifier + suffix, context)
      } catch {
        // try the next one
      }
    }
    throw err
  }
}

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context)
  const source = await fs.readFile(fileURLToPath(url), 'utf8')
  const { outputText } = ts.transpileModule(source, {
    fileName: fileURLToPath(url),
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, sourceMap: false },
  })
  return { format: 'module', source: outputText, shortCircuit: true }
}
