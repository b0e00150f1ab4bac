import type React from 'react'
import { useEffect, useId, useMemo, useState, type KeyboardEvent } from 'react'
import { toast, useApp } from '../state/store'
import { paletteCommands, type PaletteCommand } from './commands'
import { Dialog } from './Dialog'
import { filterCommands } from './filter'
import { closePalette } from './paletteState'

/** The palette itself: a filter field over a list of commands; ↑/↓ move, Enter runs, Esc closes. */
export function PaletteDialog(): React.JSX.Element {
  const listId = useId()
  const [query, setQuery] = useState('')
  const [active, setActive] = useState(0)
  const state = useApp()
  const shown = useMemo(() => filterCommands(query, paletteCommands()), [query])
  const current = Math.min(active, Math.max(shown.length - 1, 0))

  useEffect(() => {
    document.getElementById(`${listId}-${current}`)?.scrollIntoView({ block: 'nearest' })
  }, [current, listId])

  const run = (command: PaletteCommand): void => {
    const reason = command.unavailable?.(state) ?? null
    if (reason) {
      toast('info', `${command.title}: ${reason}.`)
      return
    }
    // Close first: focus goes back to where it was, and a dialog the command opens takes it from there.
    closePalette()
    Promise.resolve()
      .then(() => command.run(''))
      .catch(() => undefined) // commands that call the core have toasted already
  }

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>): void => {
    if (event.nativeEvent.isComposing) return
    const n = shown.length
    if (event.key === 'ArrowDown' && n > 0) setActive((current + 1) % n)
    else if (event.key === 'ArrowUp' && n > 0) setActive((current - 1 + n) % n)
    else if (event.key === 'Home' && n > 0) setActive(0)
    else if (event.key === 'End' && n > 0) setActive(n - 1)
    else if (event.key === 'Enter' && n > 0) run(shown[current])
    else return
    event.preventDefault()
  }

  return (
    <Dialog
      title="Command palette"
      hideTitle
      onClose={closePalette}
      className="palette-dialog"
      testId="command-palette"
    >
      <input
        className="palette-input"
        data-autofocus
        role="combobox"
        aria-label="Type a command"
        aria-expanded="true"
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={shown.length > 0 ? `${listId}-${current}` : undefined}
        placeholder="Type a command…"
        value={query}
        spellCheck={false}
        autoComplete="off"
        onChange={(e) => {
          setQuery(e.target.value)
          setActive(0)
        }}
        onKeyDown={onKeyDown}
      />
      <ul id={listId} role="listbox" aria-label="Commands" className="palette-list">
        {shown.map((command, i) => (
          <PaletteOption
            key={command.id}
            id={`${listId}-${i}`}
            command={command}
            reason={command.unavailable?.(state) ?? null}
            selected={i === current}
            onHover={() => i !== current && setActive(i)}
            onRun={() => run(command)}
          />
        ))}
        {shown.length === 0 && <li className="palette-empty">No command matches “{query}”.</li>}
      </ul>
    </Dialog>
  )
}

interface PaletteOptionProps {
  id: string
  command: PaletteCommand
  /** Why it cannot run now, shown instead of its hint; null when it can. */
  reason: string | null
  selected: boolean
  onHover(): void
  onRun(): void
}

/** One command in the list: its title, its hint (or why it is unavailable), its shortcut. */
function PaletteOption({
  id,
  command,
  reason,
  selected,
  onHover,
  onRun,
}: PaletteOptionProps): React.JSX.Element {
  return (
    <li
      id={id}
      role="option"
      aria-selected={selected}
      aria-disabled={reason !== null}
      data-command={command.id}
      className="palette-option"
      onMouseMove={onHover}
      // Keep focus in the field; a click runs the command.
      onMouseDown={(e) => e.preventDefault()}
      onClick={onRun}
    >
      <span className="palette-option-text">
        <span className="palette-option-title">{command.title}</span>
        <span className="palette-option-hint">{reason ?? command.hint}</span>
      </span>
      {command.shortcut && <kbd className="palette-kbd">{command.shortcut}</kbd>}
    </li>
  )
}
