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

/**
 * The project's own instructions, appended to the system prompt when present: the
 * files other agents read too, so a project written for them works here as is.
 * `.clinerules` may be a folder of rule files.
 */
export const RULE_FILES = [
  'AGENTS.md',
  'CLAUDE.md',
  '.clinerules',
  '.cursorrules',
  '.github/copilot-instructions.md',
]
const MAX_RULES_BYTES = 64 * 1024

export interface SystemPrompt {
  text: string
  /** Rule files that were included, relative to the project root. */
  ruleFiles: string[]
}

/** The rule files under `name` (itself when a file, its text files when a folder), root-relative. */
export function ruleFilesAt(root: string, name: string): string[] {
  const stat = fs.statSync(path.join(root, name), { throwIfNoEntry: false })
  if (stat?.isFile()) return [name]
  if (!stat?.isDirectory()) return []
  return fs
    .readdirSync(path.join(root, name), { withFileTypes: true })
    .filter((d) => d.isFile() && /\.(md|txt)$/i.test(d.name))
    .map((d) => `${name}/${d.name}`)
    .sort()
}

function readRules(root: string, rel: string): string {
  const buf = fs.readFileSync(path.join(root, rel))
  let text = buf.subarray(0, MAX_RULES_BYTES).toString('utf8')
  if (buf.length > MAX_RULES_BYTES)
    text += `\n[TRUNCATED: ${rel} is ${buf.length} bytes; showing the first 64 KB]`
  return text.trim()
}

/** Stepwise's own instructions (resources/prompts/system.md): the start of every system prompt. */
export function baseSystemPrompt(resourcesDir = findResourcesDir()): string {
  return fs.readFileSync(path.join(resourcesDir, 'prompts', 'system.md'), 'utf8').trim()
}

export function buildSystemPrompt(
  root: string,
  opts: { resourcesDir?: string; extra?: string } = {},
): SystemPrompt {
  const parts = [baseSystemPrompt(opts.resourcesDir)]
  const ruleFiles: string[] = []
  for (const name of RULE_FILES) {
    for (const rel of ruleFilesAt(root, name)) {
      let text: string
      try {
        text = readRules(root, rel)
      } catch {
        continue
      }
      ruleFiles.push(rel)
      parts.push(`# Project rules (${rel})\nThe project's own instructions. Follow them.\n\n${text}`)
    }
  }
  if (opts.extra) parts.push(opts.extra.trim())
  return { text: parts.join('\n\n'), ruleFiles }
}
