import type { CommandPart } from '../../shared/protocol'
import { loadShellParser, parseShell } from './parse'
import { checkCommand } from './policy'
import { settingsOf, type CommandSettings } from '../sandboxing/settings'

/** Redirects that write nowhere a rule could hide a change in. */
const HARMLESS_REDIRECT = /^(\/dev\/null|&?[0-2]|-)$/

/**
 * A command line's simple commands for the "always allow" rules (shared/approval-rules.ts), each
 * with the policy's own verdict on it alone; undefined when some word is only known when the line
 * runs (a variable, a substitution, a heredoc, a redirect into a file, a function): no rule may
 * cover such a line, so it keeps asking.
 */
export async function commandParts(
  line: string,
  ctx: { commands?: CommandSettings; root: string },
): Promise<CommandPart[] | undefined> {
  const parsed = parseShell(await loadShellParser(), line)
  if (
    parsed.syntaxError ||
    parsed.reevaluated ||
    parsed.functions.length > 0 ||
    parsed.assignments.length > 0
  )
    return undefined
  if (parsed.redirects.some((r) => r.target.dynamic || !HARMLESS_REDIRECT.test(r.target.value)))
    return undefined
  if (parsed.commands.length === 0) return undefined
  const parts: CommandPart[] = []
  for (const command of parsed.commands) {
    const plain =
      command.assignments.length === 0 &&
      command.nested.length === 0 &&
      (command.stdin === undefined || command.stdin === 'pipe') &&
      command.argv.length > 0 &&
      command.argv.every((w) => !w.dynamic && !w.ansiC)
    if (!plain) return undefined
    const verdict = await checkCommand(command.source, settingsOf(ctx), { root: ctx.root })
    if (verdict.verdict === 'deny') return undefined
    parts.push({ words: command.argv.map((w) => w.value), allowed: verdict.verdict === 'allow' })
  }
  return parts
}
