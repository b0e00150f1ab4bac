import { isRecord } from '../../../shared/records'

/** A line about the code index from `index/status` (typed `unknown` on the wire: read defensively). */
export function indexSummary(status: unknown, now: number): string {
  if (!isRecord(status)) return 'Unknown'
  const s = status
  const files = typeof s.files === 'number' ? s.files : null
  if (files === null) return 'Unknown'
  if (typeof s.builtAt !== 'number') return 'Not built yet'
  const languages =
    typeof s.languages === 'object' && s.languages !== null
      ? Object.entries(s.languages)
          .filter((e): e is [string, number] => typeof e[1] === 'number' && e[1] > 0)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 3)
          .map(([name]) => name)
      : []
  const parts = [`${files.toLocaleString('en-US')} files`, `built ${ago(now - s.builtAt)}`]
  if (languages.length > 0) parts.push(languages.join(', '))
  if (typeof s.warning === 'string' && s.warning) parts.push(s.warning)
  return parts.join(' · ')
}

function ago(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000)
  if (minutes < 1) return 'just now'
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.floor(minutes / 60)
  if (hours < 24) return `${hours} h ago`
  return `${Math.floor(hours / 24)} d ago`
}
