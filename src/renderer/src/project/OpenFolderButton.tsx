import type React from 'react'
import { Dialog } from '../palette/Dialog'
import { closeFolderDialog, openFolderDialog, useOpenerUi } from './openerUi'
import { ProjectOpener } from './ProjectOpener'
import './project.css'

/**
 * "Open folder…" for the header, and the dialog it opens (also opened by `openFolderDialog()`,
 * e.g. from the command palette). Mount it once.
 */
export function OpenFolderButton({ className }: { className?: string }): React.JSX.Element {
  const open = useOpenerUi((s) => s.open)
  return (
    <>
      <button
        type="button"
        className={className ?? 'ui-button small'}
        data-testid="open-folder"
        aria-haspopup="dialog"
        onClick={openFolderDialog}
      >
        Open folder…
      </button>
      {open && (
        <Dialog title="Open a project" onClose={closeFolderDialog} className="project-dialog">
          <ProjectOpener standalone={false} onOpened={closeFolderDialog} />
        </Dialog>
      )}
    </>
  )
}
