import { contribute } from '../panels/registry'
import { COMMANDS } from './commands'
import { HelpDialog } from './HelpDialog'
import { PaletteDialog } from './PaletteDialog'
import { HELP_PANEL, PALETTE_PANEL, STATUS_PANEL, togglePalette } from './paletteState'
import { StatusDialog } from './StatusDialog'
import { undoLastChange } from './undo'

/** Whether a key press belongs to what has focus: a field, a select, an editor. */
function inEditable(target: EventTarget | null): boolean {
  return (
    target instanceof Element &&
    target.closest(
      'input, textarea, select, [contenteditable]:not([contenteditable="false"]), .monaco-editor',
    ) !== null
  )
}

/**
 * The command palette: its dialog and the two its commands open (Help, Status), the app's own
 * commands, and the keys Ctrl+K / Cmd+K (the palette, even from a field) and Ctrl+Z / Cmd+Z (undo
 * the agent's last change, when focus is not in a field or editor and no dialog is open).
 */
export const contributePalette = (): (() => void) =>
  contribute({
    feature: 'palette',
    dialogs: [
      { id: PALETTE_PANEL, component: PaletteDialog },
      { id: HELP_PANEL, component: HelpDialog },
      { id: STATUS_PANEL, component: StatusDialog },
    ],
    commands: COMMANDS,
    keys: [
      {
        shortcut: 'palette',
        run(event) {
          // Not over another dialog (settings, a confirmation): one modal at a time.
          if (document.querySelector('dialog[open]:not(.palette-dialog)')) return
          event.preventDefault()
          event.stopPropagation()
          togglePalette()
        },
      },
      {
        shortcut: 'undo',
        run(event) {
          // In a field or editor it is the field's own undo.
          if (event.repeat || inEditable(event.target) || document.querySelector('dialog[open]')) return
          event.preventDefault()
          void undoLastChange()
        },
      },
    ],
  })
