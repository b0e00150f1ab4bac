import { rgPath } from '@vscode/ripgrep'
import { ripgrepFilterArgs } from '../src/main/containment/ripgrep'
import { callTool, okFields, toolContext } from './tools'
import { ensureTree } from './tree'
import { compare, isMain, log, median, report, runProgram, type BenchRow } from './util'

/*
 * Listing: the sandbox's listFiles() (every file, no limit) and the list_files
 * tool (through the registry, at its maximum limit) against `rg --files` with
 * the same ignore flags and deny globs the sandbox passes.
 */

const RUNS = 9
/** list_files caps `limit` at LIST_MAX (src/main/tools/read.ts). */
const TOOL_LIMIT = 10_000

export async function benchList(): Promise<BenchRow[]> {
  const tree = ensureTree()
  const ctx = await toolContext(tree.root)
  const filter = ripgrepFilterArgs(ctx.sandbox.denyPatterns)
  const rgFiles = () => runProgram(rgPath, ['--files', ...filter], { cwd: ctx.root })
  const rgText = `rg --files`

  const all = await compare({ runs: RUNS, ours: () => ctx.sandbox.listFiles(), reference: rgFiles })
  const listed = all.oursValue.files
  const expected = all.referenceValue.toString('utf8').split('\n').filter(Boolean).sort()
  if (listed.length !== expected.length || listed.some((f, i) => f !== expected[i])) {
    throw new Error(
      `listFiles (${listed.length}) and rg --files (${expected.length}) disagree on the file set`,
    )
  }
  const leaked = listed.filter((f) =>
    /(^|\/)(node_modules|build|dist|coverage|generated)\/|\.env|\.pem$|\.key$|id_rsa|\.npmrc|\.log$/.test(f),
  )
  if (leaked.length > 0)
    throw new Error(`listing shows ignored or denied files: ${leaked.slice(0, 5).join(', ')}`)
  log(
    `tree ${tree.files} files, ${(tree.bytes / 1e6).toFixed(0)} MB; listed ${listed.length} (skipped ${tree.files - listed.length} ignored/denied)`,
  )

  const tool = await compare({
    runs: RUNS,
    ours: () => callTool(ctx, 'list_files', { limit: TOOL_LIMIT }),
    reference: rgFiles,
  })
  const first = okFields(tool.oursValue)
  const second = okFields(await callTool(ctx, 'list_files', { limit: TOOL_LIMIT }))
  const sameSubset = JSON.stringify(first.files) === JSON.stringify(second.files)
  log(
    `list_files limit ${TOOL_LIMIT}: count ${String(first.count)}, truncated: ${first.truncated ? 'yes' : 'no'}; same subset on two calls: ${sameSubset}`,
  )

  return [
    {
      name: `list: sandbox.listFiles() all ${listed.length}`,
      unit: 's',
      ours: median(all.ours),
      refName: rgText,
      reference: median(all.reference),
      target: { maxRatio: 1.5 },
      note: `median of ${RUNS}; same ${listed.length} paths as rg (sorted), no ignored/denied path`,
    },
    {
      name: `list: list_files tool (limit ${TOOL_LIMIT})`,
      unit: 's',
      ours: median(tool.ours),
      refName: rgText,
      reference: median(tool.reference),
      target: { maxRatio: 1.5 },
      note:
        (listed.length > TOOL_LIMIT
          ? `LIST_MAX caps the tool at ${TOOL_LIMIT} paths, so it returns ${TOOL_LIMIT} of ${listed.length} (truncated); the reference lists all`
          : `all ${listed.length} paths fit under the tool's cap`) +
        (first.truncated && !sameSubset
          ? '; the truncated subset differed between two calls (ripgrep order is not stable)'
          : ''),
    },
  ]
}

if (isMain(import.meta)) report('list_files vs rg --files', await benchList())
