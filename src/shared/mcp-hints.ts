import type { SubjectOf } from './protocol'

/*
 * What a server says about its tool (its MCP annotations: readOnlyHint, destructiveHint,
 * idempotentHint, openWorldHint), in words, for the approval card and the CLI's prompt alike.
 * Only what the server set is said: an annotation it left out is not guessed at. They are
 * hints, never permissions (docs/mcp.md#approvals); a destructive tool is the one that changes
 * what the policy does (allowing its whole server does not cover it).
 */

export interface McpHintPhrase {
  /** The annotation, for styling and tests. */
  hint: 'readOnly' | 'destructive' | 'idempotent' | 'openWorld'
  /** What the server set it to. */
  value: boolean
  /** In words, for the one approving. */
  text: string
  /** Worth a second look before approving. */
  warn: boolean
}

type Annotated = Pick<SubjectOf<'mcp'>, 'readOnly' | 'hints'>

export function mcpHintPhrases(subject: Annotated): McpHintPhrase[] {
  const out: McpHintPhrase[] = []
  const h = subject.hints ?? {}
  if (subject.readOnly)
    out.push({ hint: 'readOnly', value: true, text: 'only reads, changes nothing', warn: false })
  if (h.destructive !== undefined && !subject.readOnly)
    out.push(
      h.destructive
        ? {
            hint: 'destructive',
            value: true,
            text: 'may delete or overwrite data (allowing the whole server does not cover it)',
            warn: true,
          }
        : { hint: 'destructive', value: false, text: 'only adds, never deletes or overwrites', warn: false },
    )
  if (h.idempotent !== undefined)
    out.push(
      h.idempotent
        ? {
            hint: 'idempotent',
            value: true,
            text: 'safe to repeat: the same call again changes nothing more',
            warn: false,
          }
        : {
            hint: 'idempotent',
            value: false,
            text: 'not safe to repeat: each call may act again',
            warn: false,
          },
    )
  if (h.openWorld !== undefined)
    out.push(
      h.openWorld
        ? {
            hint: 'openWorld',
            value: true,
            text: 'reaches outside: the internet or other systems',
            warn: true,
          }
        : { hint: 'openWorld', value: false, text: 'stays within its own data', warn: false },
    )
  return out
}
