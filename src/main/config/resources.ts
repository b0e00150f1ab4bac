import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Finds `resources/` whether we run from the sources (tests), from the build
 * (out/main/cli.js) or from an installed package: walk up from this module.
 */
export function findResourcesDir(start = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = start
  for (;;) {
    const candidate = path.join(dir, 'resources', 'prompts')
    if (fs.existsSync(candidate)) return path.join(dir, 'resources')
    const parent = path.dirname(dir)
    if (parent === dir)
      throw new Error(`Stepwise resources folder not found above ${start}; the install is incomplete.`)
    dir = parent
  }
}
