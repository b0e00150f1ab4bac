import pc from 'picocolors'
import type { BuildProgress } from '../../codeindex/code-index'

/*
 * The code index's progress bar on stderr, for a terminal only: piped or
 * redirected stderr (scripts, CI, JSON mode readers) never sees it. One line,
 * redrawn in place, cleared when the build ends.
 */

const WIDTH = 24

/** The bar's text for one progress report (no colour, no cursor codes). */
export function formatIndexProgress(p: BuildProgress): string {
  if (p.phase === 'listing') return 'code index: listing files…'
  if (p.phase === 'loading') return `code index: loading ${p.total.toLocaleString('en-US')} files…`
  const share = p.total > 0 ? Math.min(1, p.done / p.total) : 1
  const filled = Math.round(share * WIDTH)
  const bar = '█'.repeat(filled) + '░'.repeat(WIDTH - filled)
  const count = `${p.done.toLocaleString('en-US')}/${p.total.toLocaleString('en-US')} files`
  return `code index ${bar} ${Math.floor(share * 100)}% ${count}`
}

export interface ProgressLine {
  update(p: BuildProgress): void
  /** Clears the line (idempotent). */
  close(): void
}

/** A progress line on `out`; does nothing when `out` is not a terminal. */
export function indexProgressLine(out: NodeJS.WriteStream): ProgressLine {
  let shown = false
  const clear = () => {
    if (shown) out.write('\r\x1b[K')
    shown = false
  }
  return {
    update(p) {
      if (!out.isTTY) return
      if (p.phase === 'done') return clear()
      out.write(`\r${pc.dim(formatIndexProgress(p))}\x1b[K`)
      shown = true
    },
    close: clear,
  }
}
