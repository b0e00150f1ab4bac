/**
 * The canvas's colours come from CSS (overview.css), so the themes stay in one place:
 * each is the `color` of a hidden probe element, read back resolved (light-dark() and
 * the forced theme applied) whenever the theme changes.
 */

export const PALETTE_KEYS = [
  'bg',
  'text',
  'muted',
  'grid',
  'turn',
  'turnEdge',
  'model',
  'tool',
  'command',
  'compaction',
  'wait',
  'error',
  'rejected',
  'accent',
  'tokensIn',
  'tokensOut',
  'cost',
  'fileRead',
  'fileWrite',
  'checkpoint',
  'restore',
  'fork',
  'gap',
] as const

export type PaletteKey = (typeof PALETTE_KEYS)[number]
export type Palette = Record<PaletteKey, string>

export function readPalette(probe: HTMLElement): Palette {
  const colorOf = (key: PaletteKey): string => {
    const el = probe.querySelector<HTMLElement>(`[data-c="${key}"]`)
    return el ? getComputedStyle(el).color : '#888'
  }
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- fromEntries types its keys as string; every PaletteKey is mapped here
  return Object.fromEntries(PALETTE_KEYS.map((key) => [key, colorOf(key)])) as Palette
}

/** Calls `onChange` when the theme may have changed: the forced theme attribute, or the OS's. */
export function watchTheme(onChange: () => void): () => void {
  const media = window.matchMedia('(prefers-color-scheme: dark)')
  media.addEventListener('change', onChange)
  const observer = new MutationObserver(onChange)
  observer.observe(document.documentElement, {
    attributes: true,
    attributeFilter: ['data-theme', 'class', 'style'],
  })
  return () => {
    media.removeEventListener('change', onChange)
    observer.disconnect()
  }
}
