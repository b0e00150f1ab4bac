import { openPanel } from '../panels/panelState'
import { contributedCommands, type Command } from '../panels/registry'
import { isBusy, toast, useApp, type AppState } from '../state/store'
import { checkLastAnswer, clearChat, focusSessions, reindex, startNewChat } from './actions'
import { shortcutLabel } from './keys'
import { HELP_PANEL, STATUS_PANEL } from './paletteState'
import { IS_MAC } from './shortcuts'
import { compactNow, exportChat, reviewTarget, rewindTo, setPolicy } from './slashActions'
import { undoLastChange } from './undo'

/**
 * One command of the app, shared by the command palette (Ctrl+K) and the message box's slash
 * commands (`/name args`): one list, the registry's (panels/registry.ts), so both always offer the
 * same things. The palette contributes the commands below; a feature contributes its own (Settings,
 * MCP servers, Switch model, Open folder…) beside its panel.
 */
export type PaletteCommand = Command

const needsProject = (s: AppState): string | null => (s.project ? null : 'Open a project first')
const needsSession = (s: AppState): string | null => (s.sessionId ? null : 'Open a chat first')

/** The palette's own commands (palette/contribution.tsx contributes them). */
export const COMMANDS: readonly PaletteCommand[] = [
  {
    id: 'help',
    slash: 'help',
    title: 'Help',
    hint: 'Keyboard shortcuts',
    keywords: 'keyboard shortcuts keys',
    run: () => openPanel(HELP_PANEL),
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
    run: () => openPanel(STATUS_PANEL),
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
]

/** A required argument (not `[optional]`). */
export function needsArg(command: PaletteCommand): boolean {
  return Boolean(command.args && !command.args.startsWith('['))
}

interface CommandLists {
  from: readonly PaletteCommand[] | null
  palette: readonly PaletteCommand[]
  slash: readonly PaletteCommand[]
}

// Worked out again only when a feature contributes or takes back.
let lists: CommandLists = { from: null, palette: [], slash: [] }

function listsNow(): CommandLists {
  const all = contributedCommands()
  if (lists.from !== all)
    lists = { from: all, palette: all.filter((c) => !needsArg(c)), slash: all.filter((c) => c.slash) }
  return lists
}

/** What the palette lists: the commands that need no argument (it has no field for one). */
export function paletteCommands(): readonly PaletteCommand[] {
  return listsNow().palette
}

/** The commands the message box completes after `/`. */
export function slashCommands(): readonly PaletteCommand[] {
  return listsNow().slash
}

export function findSlash(name: string): PaletteCommand | undefined {
  return slashCommands().find((c) => c.slash === name)
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
