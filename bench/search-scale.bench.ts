import { rgPath } from '@vscode/ripgrep'
import { sandboxRipgrepArgs } from '../src/main/containment/sandbox'
import { ensureScaleTree } from './scale-tree'
import { callTool, okFields, toolContext } from './tools'
import { compare, countLines, isMain, log, median, report, runProgram, type BenchRow } from './util'

/*
 * search_in_files on the real tree of bench/scale.bench.ts (~85,000 files of npm
 * packages, minified bundles included) against `rg -n` with the same case mode and
 * filters (sandboxRipgrepArgs), timed in the same run, alternating sides:
 * - a query with a few hundred hits, some in megabyte-long minified lines, under
 *   the match cap, so both sides scan the whole tree (target ≤ 1.2×);
 * - a string found nowhere (the walk and the reads are all; target ≤ 1.0×);
 * - a common query with limit_matches 50: the tool stops at the limit, the
 *   reference is rg over the whole tree (target: below 1×, i.e. faster).
 */

const RUNS = 5

export async function benchSearchScale(): Promise<BenchRow[]> {
  const tree = ensureScaleTree()
  log(`tree: ${tree.root} (${tree.files} files, ${tree.origin})`)
  const ctx = await toolContext(tree.root)
  // Like with like: the tool's case mode (case-sensitive unless asked otherwise) and its filters
  // (the deny list and the default ignores).
  const filter = sandboxRipgrepArgs(ctx.sandbox.denyPatterns)
  const rg = (query: string) =>
    runProgram(
      rgPath,
      ['--line-number', '--fixed-strings', '--case-sensitive', '--regexp', query, ...filter],
      {
        cwd: ctx.root,
        okCodes: [0, 1],
      },
    )
  const rows: BenchRow[] = []

  for (const [label, query, limit, maxRatio] of [
    ['hundreds of hits, long lines', 'forwardRef', 1000, 1.2],
    ['a string found nowhere', 'zqxDefinitelyAbsent', 1000, 1],
  ] as const) {
    const result = await compare({
      runs: RUNS,
      // limit_files at its maximum: the default (200 files) would stop before rg does.
      ours: () => callTool(ctx, 'search_in_files', { query, limit_matches: limit, limit_files: 10_000 }),
      reference: () => rg(query),
    })
    const fields = okFields(result.oursValue)
    const rgMatches = countLines(result.referenceValue)
    if (fields.count !== rgMatches)
      throw new Error(`search "${query}": the tool found ${String(fields.count)}, rg ${rgMatches}`)
    rows.push({
      name: `search-scale: ${label} (${rgMatches} hits)`,
      unit: 's',
      ours: median(result.ours),
      refName: 'rg -n',
      reference: median(result.reference),
      target: { maxRatio },
      note: `"${query}" over the whole tree, median of ${RUNS}; identical match count`,
    })
  }

  const common = 'function'
  const early = await compare({
    runs: RUNS,
    ours: () => callTool(ctx, 'search_in_files', { query: common, limit_matches: 50 }),
    reference: () => rg(common),
  })
  const fields = okFields(early.oursValue)
  if (fields.count !== 50 || !fields.truncated) throw new Error('the limited search did not stop at 50')
  rows.push({
    name: 'search-scale: limit_matches 50, common query',
    unit: 's',
    ours: median(early.ours),
    refName: `rg -n whole tree (${countLines(early.referenceValue)} hits)`,
    reference: median(early.reference),
    target: { maxRatio: 1 },
    note: `"${common}": the tool stops at its limit; median of ${RUNS}`,
  })
  return rows
}

if (isMain(import.meta)) report('search_in_files on the real tree vs ripgrep', await benchSearchScale())
