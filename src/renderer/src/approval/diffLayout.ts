import { useCallback, useEffect, useState, type RefObject } from 'react'

/*
 * Side by side or inline: the user's last choice, remembered across approvals and restarts; until
 * they choose, inline when the pane is too narrow for two readable columns.
 */

export type DiffLayout = 'side' | 'inline'

const STORAGE_KEY = 'stepwise.diffLayout'
/** Below this width (px) of the diff area, two columns cut off both sides: inline by default. */
export const NARROW_DIFF_WIDTH = 760

export function loadLayoutChoice(): DiffLayout | null {
  try {
    const v = globalThis.localStorage?.getItem(STORAGE_KEY)
    return v === 'side' || v === 'inline' ? v : null
  } catch {
    return null
  }
}

function saveLayoutChoice(layout: DiffLayout): void {
  try {
    globalThis.localStorage?.setItem(STORAGE_KEY, layout)
  } catch {
    // Storage may be off (private window): the choice then lasts for this approval only.
  }
}

/** The layout to show: the remembered choice, else by the width of the diff area. */
export function effectiveLayout(choice: DiffLayout | null, width: number | null): DiffLayout {
  if (choice) return choice
  return width !== null && width < NARROW_DIFF_WIDTH ? 'inline' : 'side'
}

/** The diff layout for the element `ref` (watched for its width), and a setter that remembers. */
export function useDiffLayout(ref: RefObject<HTMLElement | null>): [DiffLayout, (l: DiffLayout) => void] {
  const [choice, setChoice] = useState<DiffLayout | null>(loadLayoutChoice)
  const [width, setWidth] = useState<number | null>(null)

  useEffect(() => {
    const el = ref.current
    if (!el) return
    setWidth(el.clientWidth)
    const observer = new ResizeObserver(() => setWidth(el.clientWidth))
    observer.observe(el)
    return () => observer.disconnect()
  }, [ref])

  const choose = useCallback((layout: DiffLayout) => {
    saveLayoutChoice(layout)
    setChoice(layout)
  }, [])

  return [effectiveLayout(choice, width), choose]
}
