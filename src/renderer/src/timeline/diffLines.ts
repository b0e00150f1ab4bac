/** How a line of a unified diff is shown. */
export type DiffLineKind = 'add' | 'del' | 'hunk' | 'meta' | 'ctx'

export function classifyDiffLine(line: string): DiffLineKind {
  if (line.startsWith('+++') || line.startsWith('---')) return 'meta'
  if (line.startsWith('+')) return 'add'
  if (line.startsWith('-')) return 'del'
  if (line.startsWith('@@')) return 'hunk'
  if (line.startsWith('diff ') || line.startsWith('index ') || line.startsWith('\\')) return 'meta'
  return 'ctx'
}

/** Consecutive lines of the same kind as one run, so a long diff renders a few spans, not one per line. */
export function diffRuns(diff: string): Array<{ kind: DiffLineKind; text: string }> {
  const runs: Array<{ kind: DiffLineKind; text: string }> = []
  for (const line of diff.split('\n')) {
    const kind = classifyDiffLine(line)
    const last = runs[runs.length - 1]
    if (last && last.kind === kind) last.text += `\n${line}`
    else runs.push({ kind, text: line })
  }
  return runs
}
