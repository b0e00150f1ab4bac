import { create } from 'zustand'
import { APPROVAL_POLICIES, type ApprovalPolicy } from '../../../shared/protocol'
import { invoke, saveSettings, useApp } from '../state/store'

/** The approval policies, each with the one line that says what it lets the agent do. */
export const POLICY_INFO: Record<ApprovalPolicy, { label: string; explanation: string }> = {
  ask: {
    label: 'Ask',
    explanation: 'Every file change, and any command not on the allow list, waits for you.',
  },
  'auto-edit': {
    label: 'Auto-edit',
    explanation: 'File changes apply at once (each one checkpointed); commands still ask.',
  },
  'full-auto': {
    label: 'Full auto',
    explanation: 'Changes and commands run without asking, inside the sandbox.',
  },
  'read-only': { label: 'Read-only', explanation: 'Reads and answers only: nothing is changed or run.' },
}

export const POLICIES = APPROVAL_POLICIES

/**
 * Policies set for open sessions by `session/configure`, by session id: the session's events do
 * not record the change, so the view would still show the policy it started with.
 */
const useSessionPolicies = create<Record<string, ApprovalPolicy>>(() => ({}))

function isPolicy(value: string | null | undefined): value is ApprovalPolicy {
  return (APPROVAL_POLICIES as readonly (string | null | undefined)[]).includes(value)
}

/** The open session's policy, else the default for new sessions. */
export function useEffectivePolicy(): ApprovalPolicy | null {
  const sessionId = useApp((s) => s.sessionId)
  const viewPolicy = useApp((s) => s.view.approvalPolicy)
  const defaultPolicy = useApp((s) => s.settings?.approvalPolicy ?? null)
  const override = useSessionPolicies((s) => (sessionId ? s[sessionId] : undefined))
  if (sessionId) return override ?? (isPolicy(viewPolicy) ? viewPolicy : defaultPolicy)
  return defaultPolicy
}

/** Applies a policy to the open session now (its running turn too). Rejects after a toast. */
export async function setSessionPolicy(policy: ApprovalPolicy): Promise<void> {
  const { sessionId } = useApp.getState()
  if (!sessionId) return
  await invoke('session/configure', { sessionId, approvalPolicy: policy })
  useSessionPolicies.setState({ [sessionId]: policy })
}

/** The header switch: the open session's policy, or the default when none is open. */
export async function switchPolicy(policy: ApprovalPolicy): Promise<void> {
  if (useApp.getState().sessionId) await setSessionPolicy(policy)
  else await saveSettings({ approvalPolicy: policy })
}
