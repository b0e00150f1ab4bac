import { isRecord } from '../../shared/records'
import { toolSpecs } from '../tools/registry'
import type { ToolDefinition, ToolSpec } from '../tools/types'
import { COMPACT_PROMPT_WINDOW } from './windows'

/**
 * The compact prompt for small windows (docs/architecture.md#context): a local model with an 8k
 * window cannot spend half of it on tool descriptions. At or below
 * COMPACT_PROMPT_WINDOW, an editing session is offered the tools that read,
 * edit and run, with one-line descriptions and bare parameter hints; the code
 * index, review and git tools stay out (the model can still call them by name:
 * the loop runs any tool it knows). A review session keeps its diff tools.
 */

export { COMPACT_PROMPT_WINDOW }

/** Families an editing session does without on a small window (code tools are left out of every session). */
const EDITING_DROPS = new Set<ToolDefinition['family']>(['review', 'git'])
/** Tools another tool covers well enough (list_files and read_file; run_command). */
const DROPPED_TOOLS = new Set(['file_info', 'run_lint'])

/** Short descriptions that keep the one rule each tool cannot do without. */
const SHORT: Record<string, string> = {
  list_files: 'List project files (recursive, .gitignore respected).',
  read_file:
    'Read a text file; lines come back as "N\\tline". The "N\\t" prefix is not part of the file. Use start_line/end_line for long files.',
  search_in_files: 'Search file contents; returns {path, line, text} per match.',
  write_file: 'Create a file or replace all its content (read_file it first if it exists).',
  edit_file: 'Replace one exact, unique occurrence of old_string with new_string (read_file first).',
  edit_lines:
    'Replace lines start_line..end_line (as read_file numbers them) with content (read_file first).',
  delete_file: 'Delete a text file.',
  run_command: 'Run a bash command in the project root; returns exit_code and output.',
  run_tests: "Run the project's tests (optionally a filter); returns failures.",
  run_build: "Run the project's build or type check.",
}

/** The first sentence of a description, without its examples. */
function firstSentence(text: string, max = 120): string {
  const end = text.search(/(?<!\b(?:e\.g|i\.e))\.(\s|$)/)
  const sentence = end >= 0 ? text.slice(0, end + 1) : text
  return sentence.length > max ? `${sentence.slice(0, max - 1).trimEnd()}…` : sentence
}

/** Parameter schemas with short descriptions (and no examples beyond the first sentence). */
function compactParameters(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compactParameters)
  return isRecord(node) ? compactSchema(node) : node
}

/** One schema object, compacted (its nested schemas too). */
function compactSchema(node: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === 'description' && typeof value === 'string') out[key] = firstSentence(value, 60)
    else if (key === 'additionalProperties' && value === false) continue
    else out[key] = compactParameters(value)
  }
  return out
}

/** Whether this tool set is an editing session's (not a review's, which has no editing tool). */
function edits(tools: readonly ToolDefinition[]): boolean {
  return tools.some((t) => t.family === 'edit')
}

/** The tools a small window is offered: see the module comment. */
export function compactTools(tools: readonly ToolDefinition[]): ToolDefinition[] {
  const editing = edits(tools)
  return tools.filter(
    (t) => !DROPPED_TOOLS.has(t.name) && !(t.family === 'code' || (editing && EDITING_DROPS.has(t.family))),
  )
}

const cache = new WeakMap<ToolDefinition, ToolSpec>()

/** The compact tool specs: fewer tools, one-line descriptions, short parameter hints. */
export function compactToolSpecs(tools: readonly ToolDefinition[]): ToolSpec[] {
  return compactTools(tools).map((tool) => {
    let spec = cache.get(tool)
    if (!spec) {
      const full = toolSpecs([tool])[0]
      spec = {
        name: full.name,
        description: SHORT[full.name] ?? firstSentence(full.description),
        parameters: compactSchema(full.parameters),
      }
      cache.set(tool, spec)
    }
    return spec
  })
}

/** The specs for a window: the full set above COMPACT_PROMPT_WINDOW, the compact one at or below. */
export function toolSpecsForWindow(tools: readonly ToolDefinition[], windowTokens: number): ToolSpec[] {
  return windowTokens <= COMPACT_PROMPT_WINDOW ? compactToolSpecs(tools) : toolSpecs(tools)
}
