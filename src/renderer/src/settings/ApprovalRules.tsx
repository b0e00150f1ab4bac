import type React from 'react'
import { useEffect, useState } from 'react'
import { ruleLabel } from '../../../shared/approval-rules'
import type { CommandOutput } from '../../../shared/protocol'
import { invoke, useApp } from '../state/store'

type ListedRule = CommandOutput<'rules/list'>['rules'][number]

/**
 * The "always allow" rules of the open project and chat (saved from approval cards), each with
 * what it matches, and a Remove button. The same list as `stepwise rules list`.
 */
export function ApprovalRules(): React.JSX.Element | null {
  const repo = useApp((s) => s.project?.repo)
  const sessionId = useApp((s) => s.sessionId)
  const [rules, setRules] = useState<ListedRule[] | null>(null)
  /** Bumped after a removal, to list again. */
  const [version, setVersion] = useState(0)

  useEffect(() => {
    if (!repo) return
    let live = true
    invoke('rules/list', { repo, ...(sessionId ? { sessionId } : {}) }).then(
      (listed) => live && setRules(listed.rules),
      () => live && setRules([]), // toasted by invoke
    )
    return () => {
      live = false
    }
  }, [repo, sessionId, version])

  if (!repo) return null
  const remove = (id: number): void => {
    invoke('rules/remove', { id })
      .catch(() => undefined) // toasted by invoke
      .finally(() => setVersion((v) => v + 1))
  }

  return (
    <fieldset className="settings-fieldset" data-testid="approval-rules">
      <legend>Always allow (from approvals)</legend>
      {rules === null ? (
        <p className="ui-note">Loading…</p>
      ) : rules.length === 0 ? (
        <p className="ui-note">
          No rules yet. “Always in this chat” or “Always in this project” on a command or MCP approval adds
          one here.
        </p>
      ) : (
        <ul className="settings-rules">
          {rules.map((rule) => (
            <li key={rule.id} data-testid="approval-rule">
              <div>
                <code>{ruleLabel(rule.pattern)}</code>{' '}
                <span className="ui-note">{rule.scope === 'session' ? 'this chat' : 'this project'}</span>
                <p className="ui-note">{rule.description}</p>
              </div>
              <button
                type="button"
                className="ui-button"
                data-testid="approval-rule-remove"
                onClick={() => remove(rule.id)}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  )
}
