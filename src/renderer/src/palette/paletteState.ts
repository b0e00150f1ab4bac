import { create } from 'zustand'
import type { RestoreReply } from '../../../shared/protocol'

/**
 * The command palette's state: open or not, the panel a command opened (Help, Status), and an
 * undo or rewind waiting for the user to confirm overwriting files changed since.
 */
export type PalettePanel = 'help' | 'status' | null

/** A restore the core refused for files changed outside the session: asked in the app's own dialog. */
export interface RestoreConflict {
  reply: RestoreReply
  title: string
  confirmLabel: string
  /** Sends the restore again, overwriting them (the present is checkpointed first). */
  overwrite(): void
}

interface PaletteState {
  open: boolean
  panel: PalettePanel
  restoreConflict: RestoreConflict | null
}

export const usePalette = create<PaletteState>(() => ({ open: false, panel: null, restoreConflict: null }))

export function askRestoreConflict(conflict: RestoreConflict): void {
  usePalette.setState({ restoreConflict: conflict })
}

/** Opens the command palette (what Ctrl+K / Cmd+K does). */
export function openPalette(): void {
  usePalette.setState({ open: true })
}

export function closePalette(): void {
  usePalette.setState({ open: false })
}

export function togglePalette(): void {
  usePalette.setState((s) => ({ open: !s.open }))
}

export function showPanel(panel: Exclude<PalettePanel, null>): void {
  usePalette.setState({ panel })
}

export function closePanel(): void {
  usePalette.setState({ panel: null })
}

export function cancelRestore(): void {
  usePalette.setState({ restoreConflict: null })
}

export function confirmRestore(): void {
  const conflict = usePalette.getState().restoreConflict
  usePalette.setState({ restoreConflict: null })
  conflict?.overwrite()
}
