import fs from 'node:fs'
import path from 'node:path'
import { findResourcesDir } from '../config/resources'
import { createGate, type Gate } from '../containment/gate'
import type { ResolvedPath } from '../containment/types'
import { refused } from '../tools/files'

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
/** A rule file larger than this is not read at all (it is shown cut to MAX_RULES_BYTES anyway). */
const MAX_RULES_READ_BYTES = 4 * 1024 * 1024

function gateFor(root: string): Gate | undefined {
  try {
    return createGate(fs.realpathSync.native(root))
  } catch {
    return undefined // no project folder: no rules
  }
}

export interface SystemPrompt {
  text: string
  /** Rule files that were included, relative to the project root. */
  ruleFiles: string[]
}

/**
 * The rule files under `name` (itself when a file, its text files when a folder), root-relative,
 * each resolved through the gate: a rule file that is a link out of the project (to ~/.ssh/id_rsa,
 * /proc/self/environ) or to a secret is not a rule file.
 */
function ruleFilesAt(gate: Gate, name: string): Array<{ rel: string; file: ResolvedPath }> {
  const dir = gate.resolve(name)
  if (refused(dir)) return []
  const stat = fs.statSync(dir.abs, { throwIfNoEntry: false })
  if (stat?.isFile()) return [{ rel: name, file: dir }]
  if (!stat?.isDirectory()) return []
  const out: Array<{ rel: string; file: ResolvedPath }> = []
  for (const d of fs.readdirSync(dir.abs, { withFileTypes: true })) {
    if (d.isDirectory() || !/\.(md|txt)$/i.test(d.name)) continue
    const file = gate.resolve(`${dir.rel}/${d.name}`)
    if (!refused(file)) out.push({ rel: `${name}/${d.name}`, file })
  }
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0))
}

/**
 * The names of the rule files under `name`, root-relative, as the prompt would take them (through
 * the gate), for rule-files.ts to fingerprint.
 */
export function ruleFileNames(root: string, name: string): string[] {
  const gate = gateFor(root)
  return gate ? ruleFilesAt(gate, name).map((f) => f.rel) : []
}

/** A rule file's text, read through the gate (regular file, no link swapped in, not a secret by content). */
function readRules(gate: Gate, file: ResolvedPath, rel: string): string | undefined {
  const read = gate.read(file, { maxBytes: MAX_RULES_READ_BYTES })
  if (refused(read)) return undefined
  const buf = read.data
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
  const gate = gateFor(root)
  for (const name of RULE_FILES) {
    for (const { rel, file } of gate ? ruleFilesAt(gate, name) : []) {
      const text = readRules(gate!, file, rel)
      if (text === undefined) continue
      ruleFiles.push(rel)
      parts.push(`# Project rules (${rel})\nThe project's own instructions. Follow them.\n\n${text}`)
    }
  }
  if (opts.extra) parts.push(opts.extra.trim())
  return { text: parts.join('\n\n'), ruleFiles }
}
