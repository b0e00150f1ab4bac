import type React from 'react'
import { ConfirmDialog } from './ConfirmDialog'
import { HelpDialog } from './HelpDialog'
import { PaletteDialog } from './PaletteDialog'
import { cancelRestore, closePanel, confirmRestore, usePalette } from './paletteState'
import { useGlobalShortcuts } from './shortcuts'
import { StatusDialog } from './StatusDialog'
import './palette.css'

/**
 * The command palette (Ctrl+K / Cmd+K, or `openPalette()`), with the dialogs its commands open:
 * Help, Status, and the question before an undo overwrites files changed since. Mount it once;
 * it also installs the global shortcuts (`useGlobalShortcuts`).
 */
export function CommandPalette(): React.JSX.Element {
  useGlobalShortcuts()
  const open = usePalette((s) => s.open)
  const panel = usePalette((s) => s.panel)
  const conflict = usePalette((s) => s.restoreConflict)
  return (
    <>
      {open && <PaletteDialog />}
      {panel === 'help' && <HelpDialog onClose={closePanel} />}
      {panel === 'status' && <StatusDialog onClose={closePanel} />}
      {conflict && (
        <ConfirmDialog
          title={conflict.title}
          message={conflict.reply.message}
          items={conflict.reply.conflicts.length > 0 ? conflict.reply.conflicts : conflict.reply.paths}
          confirmLabel={conflict.confirmLabel}
          danger
          onConfirm={confirmRestore}
          onCancel={cancelRestore}
        />
      )}
    </>
  )
}
