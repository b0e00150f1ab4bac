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

/** Project rule files appended to the system prompt when present (the project's own instructions). */
const RULE_FILES = ['AGENTS.md']
const MAX_RULES_BYTES = 64 * 1024

export interface SystemPrompt {
  text: string
  /** Rule files that were included, relative to the project root. */
  ruleFiles: string[]
}

export function buildSystemPrompt(
  root: string,
  opts: { resourcesDir?: string; extra?: string } = {},
): SystemPrompt {
  const resources = opts.resourcesDir ?? findResourcesDir()
  const parts = [fs.readFileSync(path.join(resources, 'prompts', 'system.md'), 'utf8').trim()]
  const ruleFiles: string[] = []
  for (const name of RULE_FILES) {
    const file = path.join(root, name)
    let text: string
    try {
      const stat = fs.statSync(file)
      if (!stat.isFile()) continue
      const buf = fs.readFileSync(file)
      text = buf.subarray(0, MAX_RULES_BYTES).toString('utf8')
      if (buf.length > MAX_RULES_BYTES)
        text += `\n[TRUNCATED: ${name} is ${buf.length} bytes; showing the first 64 KB]`
    } catch {
      continue
    }
    ruleFiles.push(name)
    parts.push(`# Project rules (${name})\nThe project's own instructions. Follow them.\n\n${text.trim()}`)
  }
  if (opts.extra) parts.push(opts.extra.trim())
  return { text: parts.join('\n\n'), ruleFiles }
}
