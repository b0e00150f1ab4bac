import { useEffect } from 'react'
import type { AppSettings } from '../../../shared/protocol'
import { useApp } from '../state/store'

/** Forces dark or light (settings.css overrides the colours); `system` follows the OS again. */
export function applyTheme(theme: AppSettings['theme']): void {
  const root = document.documentElement
  if (theme === 'system') delete root.dataset.theme
  else root.dataset.theme = theme
}

/** Keeps the page's theme in step with the saved setting. */
export function useApplyTheme(): void {
  const theme = useApp((s) => s.settings?.theme)
  useEffect(() => {
    if (theme) applyTheme(theme)
  }, [theme])
}
