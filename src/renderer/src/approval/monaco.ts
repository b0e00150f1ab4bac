import { loader } from '@monaco-editor/react'
import * as monaco from 'monaco-editor'
// Vite bundles the worker as its own file, loaded from 'self' (the CSP allows no CDN and no eval).
// `monaco-editor/esm/vs/...` does not resolve through the package's exports map, hence this path.
import EditorWorker from 'monaco-editor/editor/editor.worker?worker'
import { useSyncExternalStore } from 'react'

export { languageForPath } from './languages'

/*
 * Monaco, loaded from the bundle instead of @monaco-editor/react's default CDN (there is no internet).
 * Importing this module configures it once.
 *
 * Only the base editor worker ships: it computes the diffs. The TypeScript, JSON, CSS and HTML language
 * services would each want their own worker, and a file shown out of its project only gets noise from
 * them (unresolved imports), so they are switched off; syntax colouring stays, on the main thread.
 */

self.MonacoEnvironment = { getWorker: () => new EditorWorker() }

const off = {}
monaco.typescript.typescriptDefaults.setModeConfiguration(off)
monaco.typescript.javascriptDefaults.setModeConfiguration(off)
monaco.json.jsonDefaults.setModeConfiguration({ tokens: true })
for (const defaults of [monaco.css.cssDefaults, monaco.css.scssDefaults, monaco.css.lessDefaults]) {
  defaults.setModeConfiguration(off)
}
for (const defaults of [monaco.html.htmlDefaults, monaco.html.handlebarDefaults, monaco.html.razorDefaults]) {
  defaults.setModeConfiguration(off)
}

loader.config({ monaco })

export type MonacoTheme = 'vs' | 'vs-dark'

const DARK_QUERY = '(prefers-color-scheme: dark)'

/** The OS scheme, or the theme forced in Settings (`<html data-theme>`). */
function subscribeToScheme(onChange: () => void): () => void {
  const query = window.matchMedia(DARK_QUERY)
  query.addEventListener('change', onChange)
  const forced = new MutationObserver(onChange)
  forced.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] })
  return () => {
    query.removeEventListener('change', onChange)
    forced.disconnect()
  }
}

export function currentMonacoTheme(): MonacoTheme {
  const forced = document.documentElement.dataset.theme
  if (forced === 'dark' || forced === 'light') return forced === 'dark' ? 'vs-dark' : 'vs'
  return window.matchMedia(DARK_QUERY).matches ? 'vs-dark' : 'vs'
}

/** 'vs-dark' or 'vs', following the OS colour scheme as the app's CSS variables do. */
export function useMonacoTheme(): MonacoTheme {
  return useSyncExternalStore(subscribeToScheme, currentMonacoTheme, () => 'vs')
}

export { monaco }

/**
 * Names a diff's two editors, so a screen reader says which side of which file it is in. Monaco 0.57
 * drops `originalAriaLabel` / `modifiedAriaLabel` on every options update of the diff editor (its
 * sides get an empty name), so the name is put back whenever a side's configuration changes.
 */
export function nameDiffSides(diff: monaco.editor.IStandaloneDiffEditor, path: () => string): void {
  const sides = [
    [diff.getOriginalEditor(), 'before the change'],
    [diff.getModifiedEditor(), 'with the change'],
  ] as const
  for (const [side, what] of sides) {
    const name = (): void => {
      const want = `${path()} ${what}`
      if (side.getOption(monaco.editor.EditorOption.ariaLabel) !== want)
        side.updateOptions({ ariaLabel: want })
    }
    name()
    // Disposed with the editor.
    side.onDidChangeConfiguration(name)
  }
}
