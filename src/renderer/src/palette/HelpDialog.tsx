import type React from 'react'
import { Dialog } from './Dialog'
import { shortcutLabel } from './keys'
import { IS_MAC } from './shortcuts'

const SHORTCUTS: readonly [keys: string, what: string][] = [
  [shortcutLabel('k', IS_MAC), 'Command palette'],
  [shortcutLabel('z', IS_MAC), 'Undo the agent’s last change (outside text fields)'],
  ['Esc', 'Close a dialog or list; stop the agent while it works (in the message box)'],
  ['Enter', 'Send the message (Shift+Enter: a new line)'],
  ['↑ ↓', 'Earlier messages, in the message box'],
  ['@', 'Mention a file in the message'],
  ['Y  N  E', 'Accept, reject or edit the change waiting for approval'],
  ['↑ ↓ Home End', 'Move through the timeline; Enter shows a step'],
  ['← →  Space', 'Step back, forward, play or pause while replaying'],
  ['Tab', 'Complete a folder path'],
]

/** The keyboard shortcuts, opened by the palette's Help. */
export function HelpDialog({ onClose }: { onClose(): void }): React.JSX.Element {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose} testId="help-dialog">
      <table className="palette-table">
        <tbody>
          {SHORTCUTS.map(([keys, what]) => (
            <tr key={keys + what}>
              <th scope="row">
                <kbd className="palette-kbd">{keys}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  )
}
