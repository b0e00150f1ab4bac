/** The paths a unified diff touches, in order ('+++ b/x' or '--- a/x' for a deleted file). */
export function changedPaths(diff: string): string[] {
  const out: string[] = []
  let minus: string | null = null
  for (const line of diff.split('\n')) {
    if (line.startsWith('--- ')) minus = strip(line.slice(4))
    else if (line.startsWith('+++ ')) {
      const plus = strip(line.slice(4))
      const path = plus ?? minus
      if (path && !out.includes(path)) out.push(path)
      minus = null
    } else if (line.startsWith('Binary file ')) {
      const m = /^Binary file (.+) changed$/.exec(line)
      if (m && !out.includes(m[1])) out.push(m[1])
    }
  }
  return out
}

function strip(name: string): string | null {
  const clean = name.split('\t')[0]
  if (clean === '/dev/null') return null
  return clean.replace(/^[ab]\//, '')
}
