import type React from 'react'
import { useState } from 'react'
import { approvalPolicySchema, type ApprovalPolicy } from '../../../shared/protocol'
import { POLICIES, POLICY_INFO, switchPolicy, useEffectivePolicy } from './policy'
import './settings.css'

/**
 * A compact select for the header: the open session's approval policy (applies at once, even to
 * a running turn), or the default for new sessions when none is open.
 */
export function ApprovalPolicySwitch(): React.JSX.Element {
  const policy = useEffectivePolicy()
  const [busy, setBusy] = useState(false)

  const onChange = async (next: ApprovalPolicy): Promise<void> => {
    setBusy(true)
    try {
      await switchPolicy(next)
    } catch {
      // Toasted by invoke; the select shows the policy still in force.
    } finally {
      setBusy(false)
    }
  }

  return (
    <select
      className="settings-policy-switch"
      aria-label="Approval policy"
      data-testid="approval-policy"
      value={policy ?? 'ask'}
      disabled={busy || policy === null}
      title={policy ? POLICY_INFO[policy].explanation : undefined}
      onChange={(e) => {
        const next = approvalPolicySchema.safeParse(e.target.value)
        if (next.success) void onChange(next.data)
      }}
    >
      {POLICIES.map((p) => (
        <option key={p} value={p} title={POLICY_INFO[p].explanation}>
          {POLICY_INFO[p].label}
        </option>
      ))}
    </select>
  )
}
