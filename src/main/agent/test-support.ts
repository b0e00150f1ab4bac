import type { ApprovalRule } from '../../shared/protocol'
import type { MutationDeps } from './approve'
import { NO_GRANTS } from './decide'

/**
 * MutationDeps for tests that drive one tool path without a store: no grants but the rules
 * "always" saves here, kept in memory.
 */
export function testMutationDeps(
  deps: Pick<MutationDeps, 'sessionId' | 'toolContext' | 'approver' | 'record' | 'policy'>,
): MutationDeps & { rules: ApprovalRule[] } {
  const rules: ApprovalRule[] = []
  let fileChanges = false
  return {
    ...deps,
    rules,
    grants: () => ({ ...NO_GRANTS, fileChanges, rules }),
    allowAllFileChanges: () => {
      fileChanges = true
    },
    saveRule: (scope, pattern) => {
      const rule: ApprovalRule = {
        id: rules.length + 1,
        scope,
        project: deps.toolContext.root,
        pattern,
        createdAt: 0,
        ...(scope === 'session' ? { sessionId: deps.sessionId } : {}),
      }
      rules.push(rule)
      return rule
    },
    approvedByUser: () => {},
  }
}
