import { closePanel, openPanel } from '../panels/panelState'

/** The "Open folder…" dialog's id in the panel state (project/contribution.tsx contributes it). */
export const OPEN_FOLDER_PANEL = 'open-folder'

export function openFolderDialog(): void {
  openPanel(OPEN_FOLDER_PANEL)
}

export function closeFolderDialog(): void {
  closePanel(OPEN_FOLDER_PANEL)
}
