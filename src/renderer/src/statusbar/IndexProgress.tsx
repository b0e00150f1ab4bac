import type React from 'react'
import { useEffect, useState } from 'react'
import type { HostMessage, HostNotice } from '../../../shared/protocol'
import { getApi } from '../state/store'

/**
 * The code index's background build in the status bar: a small bar and the count of
 * files done, from `host.index-progress` notices; nothing when no build runs.
 */

export type IndexProgressNotice = Extract<HostNotice, { type: 'host.index-progress' }>

/** The label and the share done (0–1, null while the files are still being listed). */
export function indexProgressView(p: IndexProgressNotice): { label: string; share: number | null } {
  if (p.phase === 'listing') return { label: 'Indexing: listing files…', share: null }
  if (p.phase === 'loading')
    return { label: `Indexing: loading ${p.total.toLocaleString('en-US')} files…`, share: null }
  const share = p.total > 0 ? Math.min(1, p.done / p.total) : 1
  return {
    label: `Indexing ${p.done.toLocaleString('en-US')}/${p.total.toLocaleString('en-US')}`,
    share,
  }
}

/** The build under way as the notices tell it, per project root; a finished one is dropped. */
export function nextBuilds(
  builds: Readonly<Record<string, IndexProgressNotice>>,
  message: HostMessage,
): Readonly<Record<string, IndexProgressNotice>> {
  if (message.type !== 'host.index-progress') return builds
  const { [message.root]: _previous, ...rest } = builds
  return message.phase === 'done' ? rest : { ...rest, [message.root]: message }
}

export function IndexProgress(): React.JSX.Element | null {
  const [builds, setBuilds] = useState<Readonly<Record<string, IndexProgressNotice>>>({})
  useEffect(() => getApi().onEvent((message) => setBuilds((b) => nextBuilds(b, message))), [])
  const current = Object.values(builds)[0]
  if (!current) return null
  const { label, share } = indexProgressView(current)
  return (
    <span
      className="statusbar-item statusbar-index"
      data-testid="index-progress"
      title={`Code index of ${current.root}: built in the background; the code tools see what is indexed so far`}
    >
      {share !== null && (
        <span
          className="statusbar-index-bar"
          role="progressbar"
          aria-label="Code index"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.floor(share * 100)}
        >
          <span className="statusbar-index-fill" style={{ width: `${Math.floor(share * 100)}%` }} />
        </span>
      )}
      {label}
    </span>
  )
}
