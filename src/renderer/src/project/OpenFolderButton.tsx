import type React from 'react'
import { Dialog } from '../palette/Dialog'
import { closeFolderDialog, openFolderDialog } from './openerUi'
import { ProjectOpener } from './ProjectOpener'
import './project.css'

/**
 * "Open folder…" for the header. The dialog it opens is a panel (project/contribution.tsx), also
 * opened by `openFolderDialog()`, e.g. from the command palette.
 */
export function OpenFolderButton({ className }: { className?: string }): React.JSX.Element {
  return (
    <button
      type="button"
      className={className ?? 'ui-button small'}
      data-testid="open-folder"
      aria-haspopup="dialog"
      onClick={openFolderDialog}
    >
      Open folder…
    </button>
  )
}

/** The "Open a project" dialog: the opener, closed once a folder opens. */
export function OpenFolderDialog({ onClose }: { onClose(): void }): React.JSX.Element {
  return (
    <Dialog title="Open a project" onClose={onClose} className="project-dialog">
      <ProjectOpener standalone={false} onOpened={closeFolderDialog} />
    </Dialog>
  )
}
