import { create } from 'zustand'
import { closePanel, openPanel, togglePanel } from '../panels/panelState'
import type { RestoreReply } from '../../../shared/protocol'

/**
 * The command palette's own state: an undo or rewind waiting for the user to confirm overwriting
 * files changed since. The palette and the dialogs its commands open (Help, Status) are panels:
 * whether they are open is the panel state's (panels/panelState.ts).
 */

/** The ids of the palette's dialogs in the panel state (palette/contribution.tsx contributes them). */
export const PALETTE_PANEL = 'palette'
export const HELP_PANEL = 'help'
export const STATUS_PANEL = 'status'

/** A restore the core refused for files changed outside the session: asked in the app's own dialog. */
export interface RestoreConflict {
  reply: RestoreReply
  title: string
  confirmLabel: string
  /** Sends the restore again, overwriting them (the present is checkpointed first). */
  overwrite(): void
}

interface PaletteState {
  restoreConflict: RestoreConflict | null
}

export const usePalette = create<PaletteState>(() => ({ restoreConflict: null }))

export function askRestoreConflict(conflict: RestoreConflict): void {
  usePalette.setState({ restoreConflict: conflict })
}

/** Opens the command palette (what Ctrl+K / Cmd+K does). */
export function openPalette(): void {
  openPanel(PALETTE_PANEL)
}

export function closePalette(): void {
  closePanel(PALETTE_PANEL)
}

export function togglePalette(): void {
  togglePanel(PALETTE_PANEL)
}

export function cancelRestore(): void {
  usePalette.setState({ restoreConflict: null })
}

export function confirmRestore(): void {
  const conflict = usePalette.getState().restoreConflict
  usePalette.setState({ restoreConflict: null })
  conflict?.overwrite()
}
