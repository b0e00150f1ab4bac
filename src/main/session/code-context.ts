import { resolveContextWindow } from '../context/windows'
import { buildRepoMap, repoMapBudget, type RepoMap } from '../context/repo-map'
import { createCodeIndex, type CodeIndex } from '../index/code-index'
import { watchIndex, type IndexWatcher } from '../index/watch'
import type { ModelProvider } from '../providers/types'
import type { Sandbox } from '../sandbox/types'
import type { Store } from '../store/types'

/**
 * The code side of a session's context (issue: code intelligence): the project's
 * index, brought up to date (only changed files are parsed), and the repo map for
 * the system prompt. One index per store and root, kept across sessions.
 */
export interface CodeContext {
  index?: CodeIndex
  repoMap?: RepoMap
  /** Things the user should know (a huge project, a grammar that failed), said once. */
  notices: string[]
  /** Keeps the index fresh while the session runs; `close()` stops it. */
  watch(): IndexWatcher | undefined
}

const indexes = new WeakMap<Store, Map<string, CodeIndex>>()

/** The one code index per store and project, kept across sessions. */
export function indexFor(store: Store, sandbox: Sandbox): CodeIndex {
  let byRoot = indexes.get(store)
  if (!byRoot) indexes.set(store, (byRoot = new Map()))
  let index = byRoot.get(sandbox.root)
  if (!index) {
    index = createCodeIndex(store.db, { root: sandbox.root, sandbox })
    byRoot.set(sandbox.root, index)
  }
  return index
}

export async function prepareCodeContext(
  store: Store,
  sandbox: Sandbox,
  provider: ModelProvider,
  signal?: AbortSignal,
): Promise<CodeContext> {
  const notices: string[] = []
  let index: CodeIndex | undefined
  try {
    index = indexFor(store, sandbox)
    const report = await index.build({ signal })
    if (report.warning) notices.push(report.warning)
    for (const grammar of report.grammarErrors) notices.push(`code index: ${grammar}`)
  } catch (err) {
    // Without an index the code tools say so and everything else works.
    notices.push(
      `The code index could not be built (${(err as Error).message}); the code tools are unavailable.`,
    )
    index = undefined
  }
  let repoMap: RepoMap | undefined
  if (index) {
    const window = await resolveContextWindow(provider, signal)
    repoMap = buildRepoMap(index, { budgetTokens: repoMapBudget(window), model: provider.model })
  }
  return {
    index,
    repoMap,
    notices,
    watch: () => (index ? watchIndex(index, { sandbox }) : undefined),
  }
}
