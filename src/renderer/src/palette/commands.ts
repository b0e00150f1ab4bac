import { openMcp } from '../mcp/mcpState'
import { openModelPicker } from '../models/pickerState'
import { openFolderDialog } from '../project/openerUi'
import { openSettings } from '../settings/settingsUi'
import { isBusy, toast, useApp, type AppState } from '../state/store'
import { checkLastAnswer, clearChat, focusSessions, reindex, startNewChat } from './actions'
import type { Searchable } from './filter'
import { shortcutLabel } from './keys'
import { showPanel } from './paletteState'
import { IS_MAC } from './shortcuts'
import { compactNow, exportChat, reviewTarget, rewindTo, setPolicy, switchModel } from './slashActions'
import { undoLastChange } from './undo'

/**
 * One command of the app, shared by the command palette (Ctrl+K) and the message box's slash
 * commands (`/name args`): one table, so both always offer the same things.
 */
export interface PaletteCommand extends Searchable {
  id: string
  /** One line under the title. */
  hint?: string
  shortcut?: string
  /** Its name after `/` in the message box; absent: palette only. */
  slash?: string
  /** What may follow the slash name, for the completion list: `N` (required), `[target]` (optional). */
  args?: string
  /** Why it cannot run now, or null when it can. */
  unavailable?(s: AppState): string | null
  /** `arg` is what followed the slash name ('' from the palette). */
  run(arg: string): void | Promise<unknown>
}

const needsProject = (s: AppState): string | null => (s.project ? null : 'Open a project first')
const needsSession = (s: AppState): string | null => (s.sessionId ? null : 'Open a chat first')

export const COMMANDS: readonly PaletteCommand[] = [
  {
    id: 'help',
    slash: 'help',
    title: 'Help',
    hint: 'Keyboard shortcuts',
    keywords: 'keyboard shortcuts keys',
    run: () => showPanel('help'),
  },
  {
    id: 'new-chat',
    slash: 'new',
    title: 'New chat',
    hint: 'A new chat in this project, on the model picked for new chats',
    keywords: 'session start new conversation',
    unavailable: needsProject,
    run: startNewChat,
  },
  {
    id: 'clear-chat',
    slash: 'clear',
    title: 'Clear chat',
    hint: 'Same as New chat: the current one stays under Sessions',
    keywords: 'reset empty fresh',
    unavailable: needsProject,
    run: clearChat,
  },
  {
    id: 'undo',
    slash: 'undo',
    title: 'Undo last change',
    hint: 'Put back the files as before the agent’s last change',
    keywords: 'revert restore checkpoint',
    shortcut: shortcutLabel('z', IS_MAC),
    unavailable: needsSession,
    run: () => undoLastChange(),
  },
  {
    id: 'rewind',
    slash: 'rewind',
    args: 'N',
    title: 'Rewind files to step N',
    hint: 'Put back the files as right after step N of this chat (the number the replay bar shows)',
    keywords: 'restore checkpoint step time travel',
    unavailable: needsSession,
    run: rewindTo,
  },
  {
    id: 'sessions',
    slash: 'sessions',
    title: 'Sessions',
    hint: 'Go to the list of chats',
    keywords: 'history chats list focus',
    run: focusSessions,
  },
  {
    id: 'status',
    slash: 'status',
    title: 'Status',
    hint: 'Model, tokens, context, sandbox and index',
    keywords: 'info about context tokens sandbox index data',
    run: () => showPanel('status'),
  },
  {
    id: 'reindex',
    slash: 'reindex',
    title: 'Reindex',
    hint: 'Rebuild the code index of this project',
    keywords: 'index rebuild symbols',
    unavailable: needsProject,
    run: reindex,
  },
  {
    id: 'review',
    slash: 'review',
    args: '[file, folder or git:REF]',
    title: 'Review changes',
    hint: 'A read-only review of the uncommitted changes; findings appear on the timeline',
    keywords: 'review audit findings security bugs diff',
    unavailable: needsProject,
    run: reviewTarget,
  },
  {
    id: 'check',
    slash: 'check',
    title: 'Check last answer',
    hint: 'Ask the model to re-examine its previous answer and fix it',
    keywords: 'review verify critique double-check',
    unavailable: (s) => needsSession(s) ?? (isBusy(s) ? 'Wait for the current turn to end' : null),
    run: checkLastAnswer,
  },
  {
    id: 'settings',
    slash: 'settings',
    title: 'Settings',
    hint: 'Approvals, commands, limits, theme',
    keywords: 'preferences options theme approval policy',
    run: openSettings,
  },
  {
    id: 'mcp',
    slash: 'mcp',
    title: 'MCP servers',
    hint: 'Servers, their tools and status; approve a project’s .mcp.json',
    keywords: 'model context protocol tools servers plugins integrations',
    run: openMcp,
  },
  {
    id: 'policy',
    slash: 'policy',
    args: 'ask|auto-edit|full-auto|read-only',
    title: 'Approval policy',
    hint: 'What the agent may do without asking, for this chat (or new chats)',
    keywords: 'approve permissions auto',
    run: setPolicy,
  },
  {
    id: 'compact',
    slash: 'compact',
    args: '[focus]',
    title: 'Compact context',
    hint: 'Summarise this chat so far (all but its first message and last exchange) to free the window',
    keywords: 'context window summarize shrink',
    unavailable: (s) => needsSession(s) ?? (isBusy(s) ? 'Wait for the current turn to end' : null),
    run: compactNow,
  },
  {
    id: 'export',
    slash: 'export',
    title: 'Export chat',
    hint: 'Save this chat as a Markdown file',
    keywords: 'save download markdown transcript',
    unavailable: needsSession,
    run: exportChat,
  },
  {
    id: 'switch-model',
    slash: 'model',
    title: 'Switch model',
    hint: 'Ollama, OpenAI or an OpenAI-compatible server',
    keywords: 'provider ollama openai pull api key',
    args: '[NAME]',
    run: (arg) => (arg ? switchModel(arg) : openModelPicker()),
  },
  {
    id: 'open-folder',
    title: 'Open folder…',
    hint: 'Open another project',
    keywords: 'project repository directory',
    run: openFolderDialog,
  },
]

/** A required argument (not `[optional]`). */
export function needsArg(command: PaletteCommand): boolean {
  return Boolean(command.args && !command.args.startsWith('['))
}

/** What the palette lists: the commands that need no argument (it has no field for one). */
export const PALETTE_COMMANDS: readonly PaletteCommand[] = COMMANDS.filter((c) => !needsArg(c))

/** The commands the message box completes after `/`. */
export const SLASH_COMMANDS: readonly PaletteCommand[] = COMMANDS.filter((c) => c.slash)

export function findSlash(name: string): PaletteCommand | undefined {
  return SLASH_COMMANDS.find((c) => c.slash === name)
}

/**
 * Runs a command unless it cannot run now (then says why). Resolves once it is done; a command
 * that called the core and was refused has toasted already.
 */
export async function runCommand(command: PaletteCommand, arg = ''): Promise<void> {
  const reason = command.unavailable?.(useApp.getState()) ?? null
  if (reason) {
    toast('info', `${command.title}: ${reason}.`)
    return
  }
  await Promise.resolve()
    .then(() => command.run(arg))
    .catch(() => undefined)
}
