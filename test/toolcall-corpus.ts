/**
 * The tool-call corpora (test/fixtures/toolcalls/*.json, format in its README) and
 * the tools offered when they are run: the real registry's specs, so every case is
 * checked against the schemas models really see.
 */
import fs from 'node:fs'
import path from 'node:path'
import { allTools, toolSpecs } from '../src/main/tools/registry'
import type { ToolSpec } from '../src/main/tools/types'

export const CORPUS_DIR = path.resolve(import.meta.dirname, 'fixtures', 'toolcalls')

/** The tools every corpus case is offered (README: "Tools offered in every corpus run"). */
export const CORPUS_TOOL_NAMES = [
  'read_file',
  'write_file',
  'edit_file',
  'list_files',
  'search_in_files',
  'run_command',
  'git_status',
] as const

export const CORPUS_TOOLS: ToolSpec[] = toolSpecs(
  allTools.filter((t) => (CORPUS_TOOL_NAMES as readonly string[]).includes(t.name)),
)

export interface ExpectedCall {
  name: string
  arguments: Record<string, unknown>
}

export interface CorpusCase {
  name: string
  source: string
  text: string
  calls: ExpectedCall[]
  /** The text left for the user once the calls are taken out, when the case pins it. */
  content?: string /** The answer also holds markup that could not be read (reported, not run) next to the calls. */
  partlyBroken?: boolean
}

export interface CorpusNegative {
  name: string
  source: string
  text: string
}

export interface CorpusBroken extends CorpusNegative {
  /** Optional: a fragment the repair's problem must contain. */
  problem?: string
}

export interface Corpus {
  family: string
  file: string
  sources: Array<{ project: string; path: string; license: string }>
  cases: CorpusCase[]
  negatives: CorpusNegative[]
  broken: CorpusBroken[]
}

/** Every corpus file, sorted by name; a file that is not valid JSON fails loudly. */
export function loadCorpora(dir = CORPUS_DIR): Corpus[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const raw = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Partial<Corpus>
      return {
        family: raw.family ?? path.basename(file, '.json'),
        file,
        sources: raw.sources ?? [],
        cases: raw.cases ?? [],
        negatives: raw.negatives ?? [],
        broken: raw.broken ?? [],
      }
    })
}
