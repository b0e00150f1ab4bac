import { describeRule } from '../../shared/approval-rules'
import type { CommandInput, CommandOutput } from '../../shared/protocol'
import type { ServiceContext } from './context'
import { resolveProjectDir } from './sessions'

/** The "always allow" rules of a project (and a session), for Settings: listed with what they match. */
export function listRules(
  ctx: ServiceContext,
  input: CommandInput<'rules/list'>,
): CommandOutput<'rules/list'> {
  const project = resolveProjectDir(input.repo)
  const rules = ctx.store.approvals.listRules(project, input.sessionId)
  return { rules: rules.map((r) => ({ ...r, description: describeRule(r.pattern) })) }
}

export function removeRule(
  ctx: ServiceContext,
  input: CommandInput<'rules/remove'>,
): CommandOutput<'rules/remove'> {
  return { removed: ctx.store.approvals.removeRule(input.id) }
}
