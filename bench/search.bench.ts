import { rgPath } from '@vscode/ripgrep'
import { ripgrepFilterArgs } from '../src/main/containment/ripgrep'
import { callTool, okFields, toolContext } from './tools'
import { COMMON_QUERY, RARE_QUERY, ensureTree } from './tree'
import {
  compare,
  countLines,
  formatValue,
  isMain,
  log,
  median,
  report,
  runProgram,
  timed,
  type BenchRow,
} from './util'

/*
 * Search: the search_in_files tool (through the registry, real sandbox) against
 * ripgrep run by hand with the same ignore flags and deny globs, the same
 * literal / smart-case matching, and plain `path:line:text` output. One query
 * with a few hundred hits (below the tool's 1,000-match cap, so both sides scan
 * the whole tree) and one rare query.
 */

const RUNS = 7
const LIMIT = 1000

export async function benchSearch(): Promise<BenchRow[]> {
  const tree = ensureTree()
  const ctx = await toolContext(tree.root)
  const filter = ripgrepFilterArgs(ctx.sandbox.denyPatterns)
  const rows: BenchRow[] = []

  for (const [label, query] of [
    ['common', COMMON_QUERY],
    ['rare', RARE_QUERY],
  ] as const) {
    const queryFlags = ['--fixed-strings', '--smart-case', '--regexp', query]
    const rg = (extra: string[]) =>
      runProgram(rgPath, [...extra, ...queryFlags, ...filter], { cwd: ctx.root, okCodes: [0, 1] })
    const result = await compare({
      runs: RUNS,
      ours: () => callTool(ctx, 'search_in_files', { query, limit_matches: LIMIT, limit_files: LIMIT }),
      reference: () => rg(['--line-number']),
    })
    const fields = okFields(result.oursValue)
    const rgMatches = countLines(result.referenceValue)
    if (fields.truncated)
      throw new Error(
        `search "${query}" hit the ${LIMIT}-match or -file cap (${String(fields.truncated)}); the tree's planted rate is too high`,
      )
    if (fields.count !== rgMatches)
      throw new Error(`search "${query}": the tool found ${String(fields.count)}, rg ${rgMatches}`)

    // Where the time goes: ripgrep's own JSON output (what the tool reads) without the tool around it.
    const json: number[] = []
    for (let i = 0; i < 3; i++) json.push((await timed(() => rg(['--json']))).seconds)
    log(`"${query}": ${rgMatches} matching lines; rg --json alone ${formatValue(median(json), 's')}`)

    rows.push({
      name: `search: search_in_files ${label} (${rgMatches} hits)`,
      unit: 's',
      ours: median(result.ours),
      refName: 'rg -n',
      reference: median(result.reference),
      target: { maxRatio: 1.5 },
      note: `"${query}", median of ${RUNS}; identical match count on both sides`,
    })
  }
  return rows
}

if (isMain(import.meta)) report('search_in_files vs ripgrep', await benchSearch())
