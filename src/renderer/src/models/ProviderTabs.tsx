import type React from 'react'
import { useRef, type KeyboardEvent } from 'react'
import { providerIds } from '../../../shared/providers'
import { providerLabel } from './format'
import type { PickerTab } from './pickerState'

interface ProviderTabsProps {
  value: PickerTab
  onChange(tab: PickerTab): void
  /** Id prefix: tab `${idBase}-tab-${provider}` controls panel `${idBase}-panel`. */
  idBase: string
}

/** Every model first, then each provider in the registry's order (local first) with its setup. */
const ORDER: readonly PickerTab[] = ['all', ...providerIds()]

function tabLabel(tab: PickerTab): string {
  return tab === 'all' ? 'All models' : providerLabel(tab)
}

/** The picker's tabs: arrow keys, Home and End move between them (a roving tab stop). */
export function ProviderTabs({ value, onChange, idBase }: ProviderTabsProps): React.JSX.Element {
  const refs = useRef<Partial<Record<PickerTab, HTMLButtonElement | null>>>({})

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    const i = ORDER.indexOf(value)
    const n = ORDER.length
    const next =
      event.key === 'ArrowRight'
        ? (i + 1) % n
        : event.key === 'ArrowLeft'
          ? (i - 1 + n) % n
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? n - 1
              : -1
    if (next < 0) return
    event.preventDefault()
    const provider = ORDER[next]
    onChange(provider)
    refs.current[provider]?.focus()
  }

  return (
    <div className="model-picker-tabs" role="tablist" aria-label="Provider" onKeyDown={onKeyDown}>
      {ORDER.map((provider) => (
        <button
          key={provider}
          ref={(el) => {
            refs.current[provider] = el
          }}
          type="button"
          role="tab"
          id={`${idBase}-tab-${provider}`}
          aria-selected={provider === value}
          aria-controls={`${idBase}-panel`}
          tabIndex={provider === value ? 0 : -1}
          data-autofocus={provider === value ? true : undefined}
          className="model-picker-tab"
          onClick={() => onChange(provider)}
        >
          {tabLabel(provider)}
        </button>
      ))}
    </div>
  )
}
