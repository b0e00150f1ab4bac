import { contribute } from '../panels/registry'
import { OpenFolderDialog } from './OpenFolderButton'
import { OPEN_FOLDER_PANEL, openFolderDialog } from './openerUi'

/** Projects: the "Open a project" dialog and the command that opens it. */
export const contributeProject = (): (() => void) =>
  contribute({
    feature: 'project',
    dialogs: [{ id: OPEN_FOLDER_PANEL, component: OpenFolderDialog }],
    commands: [
      {
        id: 'open-folder',
        title: 'Open folder…',
        hint: 'Open another project',
        keywords: 'project repository directory',
        run: openFolderDialog,
      },
    ],
  })
