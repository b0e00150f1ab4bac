import type React from 'react'
import { slashCommands } from './commands'
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
  ['M  T  C', 'Next message, tool call or change while replaying (with Shift: the previous one)'],
  ['Tab', 'Complete a folder path'],
  ['/', 'A command in the message box (below); run in the app, never sent to the model'],
]

/** The keyboard shortcuts and the slash commands, opened by the palette's Help and `/help`. */
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
          {slashCommands().map((c) => (
            <tr key={c.id}>
              <th scope="row">
                <kbd className="palette-kbd">
                  /{c.slash}
                  {c.args ? ` ${c.args}` : ''}
                </kbd>
              </th>
              <td>{c.hint ?? c.title}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  )
}
