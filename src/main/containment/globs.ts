import ignore from 'ignore'

/**
 * A model's `glob` argument as a filter on root-relative paths, in gitignore
 * syntax like ripgrep's `-g` (`*.ts` matches at any depth, `src/*.ts` is anchored),
 * plus `{a,b}` braces. ripgrep's own `-g` is not used for a positive glob because
 * it overrides `.gitignore` and would surface ignored files.
 * A leading `!` excludes instead.
 */
export function createGlobFilter(glob: string): (rel: string) => boolean {
  const trimmed = glob.trim()
  const negate = trimmed.startsWith('!')
  const patterns = expandBraces(negate ? trimmed.slice(1) : trimmed).map((p) => p.replace(/^\.\//, ''))
  const matcher = ignore().add(patterns)
  return (rel) => matcher.ignores(rel) !== negate
}

/** `*.{ts,tsx}` → `*.ts`, `*.tsx` (nested and repeated groups too). */
export function expandBraces(pattern: string): string[] {
  let depth = 0
  let open = -1
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '\\') {
      i++
      continue
    }
    if (c === '{') {
      if (depth === 0) open = i
      depth++
    } else if (c === '}' && depth > 0) {
      depth--
      if (depth === 0) {
        const options = splitTopLevel(pattern.slice(open + 1, i))
        if (options.length < 2) continue
        const head = pattern.slice(0, open)
        const tails = expandBraces(pattern.slice(i + 1))
        return options.flatMap((o) => expandBraces(head + o).flatMap((h) => tails.map((t) => h + t)))
      }
    }
  }
  return [pattern]
}

function splitTopLevel(body: string): string[] {
  const parts: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < body.length; i++) {
    const c = body[i]
    if (c === '\\') i++
    else if (c === '{') depth++
    else if (c === '}') depth--
    else if (c === ',' && depth === 0) {
      parts.push(body.slice(start, i))
      start = i + 1
    }
  }
  parts.push(body.slice(start))
  return parts
}
