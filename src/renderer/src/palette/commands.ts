import { openModelPicker } from '../models/pickerState'
import { openFolderDialog } from '../project/openerUi'
import { openSettings } from '../settings/settingsUi'
import { isBusy, type AppState } from '../state/store'
import { checkLastAnswer, clearChat, focusSessions, reindex, reviewChanges, startNewChat } from './actions'
import type { Searchable } from './filter'
import { shortcutLabel } from './keys'
import { showPanel } from './paletteState'
import { IS_MAC } from './shortcuts'
import { undoLastChange } from './undo'

export interface PaletteCommand extends Searchable {
  id: string
  /** One line under the title. */
  hint?: string
  shortcut?: string
  /** Why it cannot run now, or null when it can. */
  unavailable?(s: AppState): string | null
  run(): void | Promise<unknown>
}

const needsProject = (s: AppState): string | null => (s.project ? null : 'Open a project first')
const needsSession = (s: AppState): string | null => (s.sessionId ? null : 'Open a chat first')

export const COMMANDS: readonly PaletteCommand[] = [
  {
    id: 'help',
    title: 'Help',
    hint: 'Keyboard shortcuts',
    keywords: 'keyboard shortcuts keys',
    run: () => showPanel('help'),
  },
  {
    id: 'new-chat',
    title: 'New chat',
    hint: 'A new chat in this project, on the model picked for new chats',
    keywords: 'session start new conversation',
    unavailable: needsProject,
    run: startNewChat,
  },
  {
    id: 'clear-chat',
    title: 'Clear chat',
    hint: 'Same as New chat: the current one stays under Sessions',
    keywords: 'reset empty fresh',
    unavailable: needsProject,
    run: clearChat,
  },
  {
    id: 'undo',
    title: 'Undo last change',
    hint: 'Put back the files as before the agent’s last change',
    keywords: 'revert restore checkpoint',
    shortcut: shortcutLabel('z', IS_MAC),
    unavailable: needsSession,
    run: () => undoLastChange(),
  },
  {
    id: 'sessions',
    title: 'Sessions',
    hint: 'Go to the list of chats',
    keywords: 'history chats list focus',
    run: focusSessions,
  },
  {
    id: 'status',
    title: 'Status',
    hint: 'Model, tokens, context, sandbox and index',
    keywords: 'info about context tokens sandbox index data',
    run: () => showPanel('status'),
  },
  {
    id: 'reindex',
    title: 'Reindex',
    hint: 'Rebuild the code index of this project',
    keywords: 'index rebuild symbols',
    unavailable: needsProject,
    run: reindex,
  },
  {
    id: 'review',
    title: 'Review changes',
    hint: 'A read-only review of the uncommitted changes; findings appear on the timeline',
    keywords: 'review audit findings security bugs diff',
    unavailable: needsProject,
    run: reviewChanges,
  },
  {
    id: 'check',
    title: 'Check last answer',
    hint: 'Ask the model to re-examine its previous answer and fix it',
    keywords: 'review verify critique double-check',
    unavailable: (s) => needsSession(s) ?? (isBusy(s) ? 'Wait for the current turn to end' : null),
    run: checkLastAnswer,
  },
  {
    id: 'settings',
    title: 'Settings',
    hint: 'Approvals, commands, limits, theme',
    keywords: 'preferences options theme approval policy',
    run: openSettings,
  },
  {
    id: 'switch-model',
    title: 'Switch model',
    hint: 'Ollama, OpenAI or an OpenAI-compatible server',
    keywords: 'provider ollama openai pull api key',
    run: () => openModelPicker(),
  },
  {
    id: 'open-folder',
    title: 'Open folder…',
    hint: 'Open another project',
    keywords: 'project repository directory',
    run: openFolderDialog,
  },
]
