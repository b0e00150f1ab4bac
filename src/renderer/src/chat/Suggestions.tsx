import type React from 'react'
import { useEffect } from 'react'

export interface Suggestion {
  key: string
  label: React.ReactNode
}

interface Props {
  id: string
  label: string
  items: readonly Suggestion[]
  active: number
  testId: string
  onPick(index: number): void
}

/**
 * The list over the message box (files after `@`, commands after `/`): a listbox whose active
 * option the box names with `aria-activedescendant`, so focus stays in the box while ↑/↓ move.
 */
export function Suggestions({ id, label, items, active, testId, onPick }: Props): React.JSX.Element {
  // Keep the active option in view when the list scrolls (a short window).
  useEffect(() => {
    document.getElementById(`${id}-${active}`)?.scrollIntoView({ block: 'nearest' })
  }, [id, active])
  return (
    <ul className="mentions" role="listbox" id={id} aria-label={label} data-testid={testId}>
      {items.map((item, i) => (
        <li
          key={item.key}
          id={`${id}-${i}`}
          role="option"
          aria-selected={i === active}
          className={i === active ? 'active' : undefined}
          onMouseDown={(e) => {
            // Keep focus in the box.
            e.preventDefault()
            onPick(i)
          }}
        >
          {item.label}
        </li>
      ))}
    </ul>
  )
}
