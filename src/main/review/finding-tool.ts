import fs from 'node:fs/promises'
import { z } from 'zod'
import { FINDING_CATEGORIES, FINDING_SEVERITIES, type Finding } from '../../shared/protocol'
import { int, optionalString } from '../tools/schema'
import { countLines } from '../tools/text'
import { decodeText } from '../../shared/text-bytes'
import type { ReadTool } from '../tools/types'
import { resolvePath, readGated } from '../tools/files'

/*
 * report_finding: the one tool only a review offers. It changes nothing on disk,
 * so it is not mutating; it hands each valid finding to the review, which records
 * it as a `review.finding` event.
 */

/** Words models use for a severity or category, mapped onto ours; anything else fails validation. */
const SEVERITY_WORDS: Record<string, Finding['severity']> = {
  critical: 'high',
  blocker: 'high',
  major: 'high',
  moderate: 'medium',
  minor: 'low',
  info: 'low',
  nit: 'low',
}
const CATEGORY_WORDS: Record<string, Finding['category']> = {
  correctness: 'bug',
  logic: 'bug',
  perf: 'performance',
  style: 'readability',
  maintainability: 'readability',
  test: 'tests',
  testing: 'tests',
}

const normalized = (words: Record<string, string>) => (v: unknown) => {
  if (typeof v !== 'string') return v
  const word = v.trim().toLowerCase()
  return words[word] ?? word
}

const findingInput = z.object({
  file: z.string().min(1).describe('The file the finding is about, project-relative, e.g. "src/app.ts".'),
  line: int('1-based line the finding is about; 0 when it concerns the whole file.', 0),
  severity: z
    .preprocess(normalized(SEVERITY_WORDS), z.enum(FINDING_SEVERITIES))
    .describe('high: must fix before shipping; medium: should fix; low: worth considering.'),
  category: z
    .preprocess(normalized(CATEGORY_WORDS), z.enum(FINDING_CATEGORIES))
    .describe('What kind of problem: bug, security, performance, readability or tests.'),
  message: z.string().min(1).describe('What is wrong and why it matters, in one or two sentences.'),
  suggestion: optionalString('The concrete fix, when you have one (code or a short instruction).'),
})

export interface ReportFindingOptions {
  /** Receives each new, valid finding (duplicates are answered but not passed on). */
  onFinding(finding: Finding): void
  /**
   * Check `line` against the file on disk. Off when the review is of a commit, whose
   * files may have changed since.
   */
  checkLineBounds?: boolean
}

export function createReportFindingTool(opts: ReportFindingOptions): ReadTool<typeof findingInput> {
  const seen = new Set<string>()
  return {
    name: 'report_finding',
    family: 'review',
    mutating: false,
    description:
      'Report one review finding: a problem at a line of a file, with its severity, category, what is wrong and a suggested fix. Call it once per problem.',
    input: findingInput,
    async run(input, ctx) {
      const file = resolvePath(ctx, input.file)
      if (!file.ok) return { ok: false, error: file.error }
      let data: Buffer
      try {
        const stat = await fs.stat(file.abs)
        if (!stat.isFile())
          return {
            ok: false,
            error: `"${file.rel}" is not a file; report findings against a file (line 0 for the whole file).`,
          }
        const read = readGated(ctx.sandbox.gate, file, { maxBytes: 64 * 1024 * 1024 })
        if (!read.ok) return { ok: false, error: read.error }
        data = read.data
      } catch {
        return {
          ok: false,
          error: `"${file.rel}" does not exist. Report findings against files in the project (list_files shows them).`,
        }
      }
      if (opts.checkLineBounds) {
        const lines = countLines(decodeText(data).text)
        if (input.line > lines)
          return {
            ok: false,
            error: `"${file.rel}" has ${lines} lines; line ${input.line} is past its end. Read the file and give the line the problem is on (0 for the whole file).`,
          }
      }
      const finding: Finding = {
        file: file.rel,
        line: input.line,
        severity: input.severity,
        category: input.category,
        message: input.message.trim(),
        ...(input.suggestion?.trim() ? { suggestion: input.suggestion.trim() } : {}),
      }
      const key = `${finding.file}\0${finding.line}\0${finding.message}`
      if (seen.has(key))
        return { ok: true, recorded: false, note: 'This finding was already reported; it is recorded once.' }
      seen.add(key)
      opts.onFinding(finding)
      return {
        ok: true,
        recorded: true,
        count: seen.size,
        note: 'Recorded. Continue the review; when you are done, answer with a short summary.',
      }
    },
  }
}
