import type React from 'react'
import { ConfirmDialog } from './ConfirmDialog'
import { cancelRestore, confirmRestore, usePalette } from './paletteState'
import { useGlobalShortcuts } from './shortcuts'
import './palette.css'

/**
 * The command palette's root: installs the global shortcuts (`useGlobalShortcuts`) and asks before
 * an undo overwrites files changed since. The palette and its dialogs (Help, Status) are panels,
 * shown by `DialogHost`. Mount it once.
 */
export function CommandPalette(): React.JSX.Element | null {
  useGlobalShortcuts()
  const conflict = usePalette((s) => s.restoreConflict)
  if (!conflict) return null
  return (
    <ConfirmDialog
      title={conflict.title}
      message={conflict.reply.message}
      items={conflict.reply.conflicts.length > 0 ? conflict.reply.conflicts : conflict.reply.paths}
      confirmLabel={conflict.confirmLabel}
      danger
      onConfirm={confirmRestore}
      onCancel={cancelRestore}
    />
  )
}
