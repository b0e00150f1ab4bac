import type React from 'react'
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react'
import { invoke } from '../state/store'
import { isCompletable, withTrailingSep } from './paths'

interface PathFieldProps {
  id: string
  value: string
  onChange(value: string): void
  /** Enter with no suggestion picked. */
  onSubmit(): void
  autoFocus?: boolean
}

const DEBOUNCE_MS = 120

/** The folders completing `value` (asked for after a pause in the typing), the list's state, the one picked. */
function useFolderCompletion(value: string, id: string, listId: string) {
  const [entries, setEntries] = useState<string[]>([])
  const [open, setOpen] = useState(false)
  const [active, setActive] = useState(-1)
  const request = useRef(0)

  useEffect(() => {
    const mine = ++request.current
    const timer = setTimeout(() => {
      if (!isCompletable(value)) {
        setEntries([])
        setOpen(false)
        return
      }
      invoke('fs/complete', { path: value })
        .then(({ entries: found }) => {
          if (mine !== request.current) return
          setEntries(found)
          setActive(-1)
          setOpen(found.length > 0 && document.activeElement?.id === id)
        })
        .catch(() => undefined) // toasted by invoke
    }, DEBOUNCE_MS)
    return () => clearTimeout(timer)
  }, [value, id])

  useEffect(() => {
    if (active >= 0) document.getElementById(`${listId}-${active}`)?.scrollIntoView({ block: 'nearest' })
  }, [active, listId])
  return { entries, open, setOpen, active, setActive }
}

interface FolderOptionsProps {
  entries: readonly string[]
  active: number
  listId: string
  onPick(entry: string): void
}

function FolderOptions({ entries, active, listId, onPick }: FolderOptionsProps): React.JSX.Element {
  return (
    <>
      {entries.map((entry, i) => (
        <li
          key={entry}
          id={`${listId}-${i}`}
          role="option"
          aria-selected={i === active}
          className="project-path-option"
          // Keep the focus in the field: a click picks, like Tab.
          onMouseDown={(e) => {
            e.preventDefault()
            onPick(entry)
          }}
        >
          <bdi>{entry}</bdi>
        </li>
      ))}
    </>
  )
}

/**
 * A folder path with completion from `fs/complete` (a combobox): ↓/↑ move through the folders,
 * Tab or Enter takes one (and lists what is inside it), Esc closes the list.
 */
export function PathField({ id, value, onChange, onSubmit, autoFocus }: PathFieldProps): React.JSX.Element {
  const listId = useId()
  const { entries, open, setOpen, active, setActive } = useFolderCompletion(value, id, listId)

  const pick = (entry: string): void => {
    onChange(withTrailingSep(entry))
    setOpen(false)
  }

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>): void => {
    if (event.nativeEvent.isComposing) return
    const listed = open && entries.length > 0
    switch (event.key) {
      case 'ArrowDown':
        event.preventDefault()
        if (!listed) setOpen(entries.length > 0)
        else setActive((i) => Math.min(i + 1, entries.length - 1))
        return
      case 'ArrowUp':
        if (!listed) return
        event.preventDefault()
        setActive((i) => Math.max(i - 1, 0))
        return
      case 'Tab':
        if (!listed || event.shiftKey) return
        event.preventDefault()
        pick(entries[Math.max(active, 0)])
        return
      case 'Enter':
        event.preventDefault()
        if (listed && active >= 0) pick(entries[active])
        else onSubmit()
        return
      case 'Escape':
        if (!listed) return
        // Close the list only, not the dialog around the field.
        event.preventDefault()
        event.stopPropagation()
        setOpen(false)
        return
    }
  }

  const listed = open && entries.length > 0
  return (
    <div className="project-path">
      <input
        id={id}
        className="ui-input"
        data-testid="project-path"
        role="combobox"
        aria-expanded={listed}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={listed && active >= 0 ? `${listId}-${active}` : undefined}
        value={value}
        placeholder="/path/to/your/project"
        spellCheck={false}
        autoComplete="off"
        autoCapitalize="off"
        data-autofocus={autoFocus ? true : undefined}
        autoFocus={autoFocus}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={onKeyDown}
        onBlur={() => setOpen(false)}
      />
      <ul id={listId} role="listbox" aria-label="Folders" className="project-path-list" hidden={!listed}>
        <FolderOptions entries={entries} active={active} listId={listId} onPick={pick} />
      </ul>
    </div>
  )
}
