import { useEffect, useEffectEvent } from 'react'
import { keyBindings } from '../panels/registry'
import { isMacPlatform, matchShortcut } from './keys'

export const IS_MAC = typeof navigator !== 'undefined' && isMacPlatform(navigator.userAgent)

/**
 * The app-wide shortcuts: each key press that matches a shortcut (`matchShortcut`) goes to the
 * features that contributed a binding for it (panels/registry.ts), which decide whether it acts.
 * `CommandPalette` calls this: mount that, or call this once yourself, not both.
 */
export function useGlobalShortcuts(): void {
  const onKey = useEffectEvent((event: KeyboardEvent) => {
    if (event.defaultPrevented || event.isComposing) return
    const shortcut = matchShortcut(event, IS_MAC)
    if (shortcut === null) return
    for (const binding of keyBindings()) if (binding.shortcut === shortcut) binding.run(event)
  })

  useEffect(() => {
    const listener = (event: KeyboardEvent): void => onKey(event)
    // Capture, so an editor that keeps Ctrl+K for itself (Monaco's chords) does not swallow it.
    window.addEventListener('keydown', listener, true)
    return () => window.removeEventListener('keydown', listener, true)
  }, [])
}
