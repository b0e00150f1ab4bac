import { create } from 'zustand'
import type { HostMessage } from '../../../shared/protocol'
import { closePanel, isPanelOpen, openPanel } from '../panels/panelState'
import { getApi, invoke, toast } from '../state/store'
import { pendingToastText } from './model'
import type { McpCommand, McpCommands, McpElicitationView, McpList } from './types'
import { errorMessage } from '../../../shared/errors'

/**
 * The MCP view's state (whether its dialog is open is the panel state's): the last `mcp/list`, and which actions are
 * under way. Every change goes through the core and comes back as the new list, so the view
 * never guesses; `host.mcp-status` notices refresh it while it is open.
 */

export type McpCall = <C extends McpCommand>(
  command: C,
  input: McpCommands[C]['input'],
) => Promise<McpCommands[C]['output']>

/** The MCP servers' dialog's id in the panel state (mcp/contribution.tsx contributes it). */
export const MCP_PANEL = 'mcp'

export interface McpUiState {
  list: McpList | null
  /** Why the last `mcp/list` failed (the host has no MCP, or it refused). */
  error: string | null
  /** Keys of actions under way (`enable:srv`, `restart:srv`…): their controls wait. */
  busy: Record<string, true>
  /** Servers whose sign-in waits for the browser: the authorization URL, to open by hand. */
  signInUrls: Record<string, string>
  /** Servers' questions waiting for the user (elicitation), oldest first. */
  elicitations: McpElicitationView[]
}

export const useMcpUi = create<McpUiState>(() => ({
  list: null,
  error: null,
  busy: {},
  signInUrls: {},
  elicitations: [],
}))

// The core's commands: through the store's invoke (which toasts a refusal), or quietly.
const coreCall: McpCall = (command, input) => invoke(command, input)
const quietCoreCall: McpCall = (command, input) => getApi().invoke(command, input)
let call: McpCall = coreCall
let quietCall: McpCall = quietCoreCall

/** Tests put a fake service in place of the core (null: the core again). */
export function setMcpService(service: McpCall | null): void {
  call = service ?? coreCall
  quietCall = service ?? quietCoreCall
}

export function openMcp(): void {
  openPanel(MCP_PANEL)
  void refreshMcp()
}

export function closeMcp(): void {
  closePanel(MCP_PANEL)
}

let inFlight: Promise<void> | null = null
let again = false

/**
 * Reads `mcp/list`; calls during a read coalesce into one more read after it. `quiet` (a glance,
 * not a request of the user's) keeps a refusal out of the toasts.
 */
export function refreshMcp(quiet = false): Promise<void> {
  if (inFlight) {
    again = true
    return inFlight
  }
  inFlight = (async () => {
    do {
      again = false
      try {
        const list = await (quiet ? quietCall : call)('mcp/list', {})
        useMcpUi.setState({ list, error: null })
      } catch (err) {
        useMcpUi.setState({ error: errorMessage(err) })
      }
    } while (again)
  })().finally(() => (inFlight = null))
  return inFlight
}

/** Runs one change; its key marks the controls that wait for it. The reply is the new list. */
async function change<
  C extends 'mcp/setEnabled' | 'mcp/setAllowed' | 'mcp/approveProject' | 'mcp/restart' | 'mcp/signOut',
>(key: string, command: C, input: McpCommands[C]['input']): Promise<void> {
  useMcpUi.setState((s) => ({ busy: { ...s.busy, [key]: true } }))
  try {
    const list = (await call(command, input)) as McpList
    useMcpUi.setState({ list, error: null })
  } catch {
    // Toasted by invoke; the list stays as it was, which is still true.
  } finally {
    useMcpUi.setState((s) => {
      const { [key]: _done, ...busy } = s.busy
      return { busy }
    })
  }
}

export const toolKey = (server: string, tool?: string): string => (tool ? `${server}/${tool}` : server)

export function setMcpEnabled(server: string, enabled: boolean, tool?: string): Promise<void> {
  return change(`enable:${toolKey(server, tool)}`, 'mcp/setEnabled', { server, tool, enabled })
}

export function setMcpAllowed(server: string, allowed: boolean, tool?: string): Promise<void> {
  return change(`allow:${toolKey(server, tool)}`, 'mcp/setAllowed', { server, tool, allowed })
}

export function restartMcp(server: string): Promise<void> {
  return change(`restart:${server}`, 'mcp/restart', { server })
}

/** Signs in (OAuth): the browser opens at the server's sign-in page; the end comes as a notice. */
export async function signInMcp(server: string): Promise<void> {
  const key = `signin:${server}`
  useMcpUi.setState((s) => ({ busy: { ...s.busy, [key]: true } }))
  try {
    const { signInUrl, ...list } = await call('mcp/signIn', { server })
    useMcpUi.setState((s) => ({
      list,
      error: null,
      signInUrls: signInUrl ? { ...s.signInUrls, [server]: signInUrl } : s.signInUrls,
    }))
  } catch {
    // Toasted by invoke.
  } finally {
    useMcpUi.setState((s) => {
      const { [key]: _done, ...busy } = s.busy
      return { busy }
    })
  }
}

export function signOutMcp(server: string): Promise<void> {
  return change(`signout:${server}`, 'mcp/signOut', { server })
}

/** Questions asked before this window listened (quiet: a host without MCP has none). */
export async function loadElicitations(): Promise<void> {
  try {
    const { pending } = await quietCall('mcp/elicitations', {})
    useMcpUi.setState({ elicitations: pending })
  } catch {
    // No MCP on this host.
  }
}

/** Answers a server's question; the list comes back without it. */
export async function answerElicitation(
  id: string,
  action: 'accept' | 'decline' | 'cancel',
  content?: Record<string, string | number | boolean>,
): Promise<void> {
  try {
    const { pending } = await call('mcp/answerElicitation', { id, action, ...(content ? { content } : {}) })
    useMcpUi.setState({ elicitations: pending })
  } catch {
    // Toasted by invoke (answered elsewhere, or its call stopped): the next notice has the list.
  }
}

export function decideProject(hash: string, approve: boolean): Promise<void> {
  return change('project', 'mcp/approveProject', { hash, approve })
}

export async function readMcpLog(server: string): Promise<string> {
  return (await call('mcp/log', { server })).text
}

/** A notice from the host; true when it was an MCP one. */
export function onMcpNotice(message: HostMessage): boolean {
  if (message.type === 'host.mcp-elicitations') {
    useMcpUi.setState({ elicitations: message.pending })
    return true
  }
  if (message.type !== 'host.mcp-status') return false
  // A sign-in that ended (ready, or refused) no longer waits for the browser.
  const { server, state } = message
  if (server && state !== 'starting' && useMcpUi.getState().signInUrls[server])
    useMcpUi.setState((s) => {
      const { [server]: _ended, ...signInUrls } = s.signInUrls
      return { signInUrls }
    })
  if (isPanelOpen(MCP_PANEL)) void refreshMcp()
  return true
}

/** Listens for `host.mcp-status` on the host's stream; returns the unsubscribe. */
export function listenForMcpStatus(): () => void {
  return getApi().onEvent((message) => void onMcpNotice(message))
}

/**
 * After a project opened: if its `.mcp.json` waits for a decision, say so with a way to it. Asked
 * quietly (no toast when the host has no MCP commands): the project works without its servers.
 */
export async function checkProjectFile(): Promise<void> {
  let list: McpList
  try {
    list = await quietCall('mcp/list', {})
  } catch {
    return
  }
  useMcpUi.setState({ list, error: null })
  const text = pendingToastText(list)
  if (text) toast('info', text, { label: 'Review', run: openMcp })
}
