import { useMemo } from 'react'
import { useApp } from '../state/store'
import { contextUse, meterReading, type MeterReading } from './derive'
import { useBaseline } from './useBaseline'

/**
 * How full the context window is: the one reading the status bar's meter and `/status` both show,
 * so they cannot disagree.
 */
export function useContextReading(): MeterReading | null {
  const events = useApp((s) => s.events)
  const baseline = useBaseline()
  const use = useMemo(() => contextUse(events), [events])
  return meterReading(use, baseline)
}
