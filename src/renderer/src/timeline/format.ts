/*
 * Small formatters shared by the timeline, the details pane and the status bar.
 * Pure functions: no locale surprises, the same output in every renderer.
 */

/** Token counts as people read them: 950, 12.3k, 123k, 1.2M. */
export function formatTokens(n: number): string {
  if (!Number.isFinite(n)) return '0'
  const sign = n < 0 ? '-' : ''
  const abs = Math.round(Math.abs(n))
  if (abs < 1000) return `${sign}${abs}`
  // Three significant digits at most; the thresholds promote 999,600 to "1M", never "1000k".
  const [size, unit] = abs < 999_500 ? [1e3, 'k'] : abs < 999_500_000 ? [1e6, 'M'] : [1e9, 'B']
  const value = abs / size
  const rounded = value < 99.95 ? Math.round(value * 10) / 10 : Math.round(value)
  return `${sign}${Number.isInteger(rounded) ? rounded : rounded.toFixed(1)}${unit}`
}

/** Durations: 850 ms, 1.2 s, 2m 03s, 1h 05m. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '0 ms'
  if (ms < 1000) return `${Math.round(ms)} ms`
  // Round to the displayed precision first, so 59.96 s reads "1m 00s", not "60.0 s".
  const tenths = Math.round(ms / 100)
  if (tenths < 600) return `${(tenths / 10).toFixed(1)} s`
  const seconds = Math.round(ms / 1000)
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${pad2(seconds % 60)}s`
  const minutes = Math.round(ms / 60_000)
  return `${Math.floor(minutes / 60)}h ${pad2(minutes % 60)}m`
}

/** A local wall-clock timestamp, "2025-01-02 03:04:05". */
export function formatTimestamp(ts: number): string {
  const d = new Date(ts)
  if (Number.isNaN(d.getTime())) return ''
  const date = `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`
  return `${date} ${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`
}

function pad2(n: number): string {
  return String(n).padStart(2, '0')
}

/**
 * Pretty JSON for the details pane. A string that holds JSON (a model's raw tool-call
 * arguments) is parsed first; anything that is not JSON is shown as it is.
 */
export function prettyJson(value: unknown): string {
  if (value === undefined) return ''
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2)
    } catch {
      return value
    }
  }
  try {
    return JSON.stringify(value, null, 2) ?? String(value)
  } catch {
    return String(value)
  }
}

/** Collapse whitespace and cut to `max` characters with an ellipsis. */
export function truncate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat
}

/** The first `maxLines` lines of a long text and how many were left out (0 when it is short). */
export function headLines(text: string, maxLines: number): { head: string; hidden: number } {
  let at = -1
  for (let i = 0; i < maxLines; i++) {
    at = text.indexOf('\n', at + 1)
    if (at < 0) return { head: text, hidden: 0 }
  }
  if (at === text.length - 1) return { head: text, hidden: 0 }
  let hidden = 1
  for (let i = text.indexOf('\n', at + 1); i >= 0; i = text.indexOf('\n', i + 1)) hidden++
  return { head: text.slice(0, at), hidden }
}

/** The last `max` characters of a text, starting at a line break when one is near, and how much was cut. */
export function tailText(text: string, max: number): { text: string; cut: number } {
  if (text.length <= max) return { text, cut: 0 }
  let start = text.length - max
  const nl = text.indexOf('\n', start)
  if (nl >= 0 && nl - start < 200) start = nl + 1
  return { text: text.slice(start), cut: start }
}
