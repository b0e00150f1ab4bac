/** Sessions as a forest: forks under their parent, newest first at each level. */
export interface TreeItem<T> {
  item: T
  depth: number
}

export function sessionTree<T extends { id: string; parentId: string | null; createdAt: number }>(
  sessions: readonly T[],
): TreeItem<T>[] {
  const ids = new Set(sessions.map((s) => s.id))
  const children = new Map<string | null, T[]>()
  for (const s of sessions) {
    // A fork whose parent is not listed (another project, deleted) shows at the top level.
    const parent = s.parentId && ids.has(s.parentId) ? s.parentId : null
    children.set(parent, [...(children.get(parent) ?? []), s])
  }
  const out: TreeItem<T>[] = []
  const walk = (parent: string | null, depth: number): void => {
    const list = (children.get(parent) ?? []).slice().sort((a, b) => b.createdAt - a.createdAt)
    for (const s of list) {
      out.push({ item: s, depth })
      walk(s.id, depth + 1)
    }
  }
  walk(null, 0)
  return out
}
