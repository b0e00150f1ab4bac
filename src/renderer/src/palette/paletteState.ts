import { create } from 'zustand'
import type { RestoreReply } from '../../../shared/protocol'

/**
 * The command palette's state: open or not, the panel a command opened (Help, Status), and an
 * undo waiting for the user to confirm overwriting files changed since.
 */
export type PalettePanel = 'help' | 'status' | null

interface PaletteState {
  open: boolean
  panel: PalettePanel
  undoConflict: RestoreReply | null
}

export const usePalette = create<PaletteState>(() => ({ open: false, panel: null, undoConflict: null }))

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
