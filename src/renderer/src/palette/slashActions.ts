import { APPROVAL_POLICIES, approvalPolicySchema } from '../../../shared/protocol'
import type { TimelineStep } from '../../../shared/reducer'
import { seqOfStep } from '../../../shared/steps'
import { chooseModel, currentChoice, currentChoiceFor } from '../models/choice'
import { rewindFiles } from '../replay/rewind'
import { POLICY_INFO, switchPolicy } from '../settings/policy'
import { invoke, loadSession, toast, useApp, workingToast } from '../state/store'
import { errorMessage } from '../../../shared/errors'

/** What the commands that take an argument do (`/rewind 12`, `/model qwen3:8b`, `/policy ask`…). */

export async function rewindTo(arg: string): Promise<void> {
  const { sessionId } = useApp.getState()
  if (!sessionId) return toast('info', 'Open a chat first: /rewind puts back its files as at a step.')
  const n = Number(arg)
  if (!/^\d+$/.test(arg) || !Number.isSafeInteger(n))
    return toast('info', 'Say which step: /rewind N (the step number the replay bar shows; 0 is the start).')
  // Step N (shared/steps.ts), the same number the replay bar and `sessions show` give.
  let seq: number
  try {
    seq = seqOfStep(useApp.getState().events, n)
  } catch (err) {
    return toast('error', `Cannot rewind: ${errorMessage(err)}`)
  }
  await rewindFiles(sessionId, seq)
}

/**
 * `/model NAME` or `/model PROVIDER:NAME`: the core looks the name up on every configured
 * provider (models/resolve); only a name found in one place is switched to, provider and all.
 */
export async function switchModel(arg: string): Promise<void> {
  const base = currentChoiceFor(useApp.getState().sessionId) ?? currentChoice()
  if (!arg)
    return toast(
      'info',
      `Say which model: /model NAME or /model PROVIDER:NAME (now ${base?.model ?? 'none'}).`,
    )
  const reply = await invoke('models/resolve', { name: arg, ...(base ? { current: base } : {}) })
  if (reply.status !== 'found' || !reply.choice) return toast('error', reply.message)
  await chooseModel(reply.choice)
  toast('info', reply.message)
}

export async function setPolicy(arg: string): Promise<void> {
  const parsed = approvalPolicySchema.safeParse(arg.toLowerCase())
  if (!parsed.success) return toast('info', `Say which policy: /policy ${APPROVAL_POLICIES.join('|')}.`)
  const policy = parsed.data
  await switchPolicy(policy)
  const where = useApp.getState().sessionId ? 'this chat' : 'new chats'
  toast(
    'info',
    `Approval policy for ${where}: ${POLICY_INFO[policy].label}. ${POLICY_INFO[policy].explanation}`,
  )
}

/** Reviews the uncommitted changes, or a file, folder or `git:REF` when one is named. */
export async function reviewTarget(arg: string): Promise<void> {
  const { project } = useApp.getState()
  if (!project) return toast('info', 'Open a project first.')
  const { sessionId, message } = await invoke('review/start', {
    repo: project.repo,
    ...(arg ? { target: arg } : {}),
    ...currentChoice(),
  })
  toast('info', message)
  if (sessionId) await loadSession(sessionId)
}

/**
 * Compacts the open chat's context now (`/compact [focus]`): everything but the first message and
 * the last exchange becomes a summary, which later turns start from. The timeline shows the step.
 */
export async function compactNow(arg: string): Promise<void> {
  const { sessionId } = useApp.getState()
  if (!sessionId) return toast('info', 'Open a chat first: /compact summarises its context.')
  const done = workingToast('Compacting the context: the model is writing a summary…')
  try {
    const { message } = await invoke('session/compact', {
      sessionId,
      ...(arg.trim() ? { focus: arg.trim() } : {}),
    })
    toast('info', message)
  } finally {
    done()
  }
}

/** The open chat as Markdown: what was asked, answered and done, step by step. */
export function sessionMarkdown(title: string, steps: readonly TimelineStep[]): string {
  const out = [`# ${title}`, '']
  for (const step of steps) {
    if (step.kind === 'user') out.push(`## You`, '', step.text, '')
    else if (step.kind === 'model' && step.text.trim()) out.push(`## Model`, '', step.text, '')
    else if (step.kind === 'tool')
      out.push(`- \`${step.name}\` ${JSON.stringify(step.args).slice(0, 200)} → ${step.status}`, '')
    else if (step.kind === 'error') out.push(`> Error: ${step.message}`, '')
    else if (step.kind === 'switch') out.push(`*Model switched to ${step.model} (${step.provider}).*`, '')
  }
  return out.join('\n')
}

export function exportChat(): void {
  const s = useApp.getState()
  if (!s.sessionId) return toast('info', 'Open a chat first: /export saves it as Markdown.')
  const title = s.sessions.find((x) => x.id === s.sessionId)?.title ?? 'Chat'
  const blob = new Blob([sessionMarkdown(title, s.view.steps)], { type: 'text/markdown' })
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = `${title.replace(/[^\w.-]+/g, '-').slice(0, 60) || 'chat'}.md`
  link.click()
  setTimeout(() => URL.revokeObjectURL(url), 1000)
  toast('info', `Saved the chat as ${link.download}.`)
}
