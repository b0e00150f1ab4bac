import { create } from 'zustand'

/** Whether the "Open folder…" dialog is open. */
export const useOpenerUi = create<{ open: boolean }>(() => ({ open: false }))

export function openFolderDialog(): void {
  useOpenerUi.setState({ open: true })
}

export function closeFolderDialog(): void {
  useOpenerUi.setState({ open: false })
}
