import { invoke, newSession, send, toast, useApp } from '../state/store'

/** What the palette's commands do beyond opening a dialog. */

export const CHECK_PROMPT =
  'Re-examine your previous answer critically: check it against the code and the task, point out anything wrong or missing, and fix it if needed.'

/** A new chat in the open project, on the model picked for new chats. */
export async function startNewChat(): Promise<void> {
  const { project } = useApp.getState()
  if (!project) {
    toast('info', 'Open a project first.')
    return
  }
  await newSession()
}

export async function clearChat(): Promise<void> {
  await startNewChat()
  toast('info', 'Started a new chat in this project; the previous one is still under Sessions.')
}

export function focusSessions(): void {
  window.dispatchEvent(new CustomEvent('stepwise:focus-sessions'))
}

export async function reindex(): Promise<void> {
  const { project } = useApp.getState()
  if (!project) {
    toast('info', 'Open a project first.')
    return
  }
  toast('info', `Indexing ${project.name}…`)
  const report = await invoke('index/rebuild', { repo: project.repo })
  const seconds = (report.durationMs / 1000).toFixed(1)
  const errors = report.errors > 0 ? ` (${report.errors} could not be parsed)` : ''
  toast('info', `Indexed ${report.files} files in ${seconds} s${errors}.`)
}

export async function checkLastAnswer(): Promise<void> {
  await send(CHECK_PROMPT)
}
