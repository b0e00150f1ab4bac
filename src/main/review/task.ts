import { truncatedItems } from '../tools/text'
import type { ReviewScope } from './target'

/** Most file names listed in the task; the rest are reached through the tools. */
const TASK_FILES_MAX = 200

/**
 * The user message that opens a review session. Its first line is the session's
 * title, so it names what is reviewed.
 */
export function reviewTask(scope: ReviewScope, focus: string | undefined): string {
  const parts = [`Review ${scope.label}.`]
  if (focus?.trim()) parts.push(`Focus: ${focus.trim()}`)
  const stats = new Map(scope.stats?.map((s) => [s.path, s]))
  const listed = scope.files.slice(0, TASK_FILES_MAX).map((file) => {
    const s = stats.get(file)
    if (!s) return `- ${file}`
    return s.additions === null ? `- ${file} (binary)` : `- ${file} (+${s.additions} -${s.deletions})`
  })
  if (scope.files.length > TASK_FILES_MAX) listed.push(truncatedItems(TASK_FILES_MAX))
  parts.push(`Files in scope (${scope.files.length}):\n${listed.join('\n')}`)
  if (scope.diff) {
    const cut = scope.diffTruncated ? `\n${scope.diffTruncated} ${scope.howToSee}` : ''
    parts.push(`The change under review:\n\`\`\`diff\n${scope.diff}\n\`\`\`${cut}`)
  }
  parts.push(scope.howToSee)
  parts.push('Report each problem with report_finding, then end with a short summary.')
  return parts.join('\n\n')
}
