import type React from 'react'
import { useEffect, useState } from 'react'
import { useEffectiveChoice } from '../models/choice'
import { providerLabel } from '../models/format'
import { useEffectivePolicy } from '../settings/policy'
import { meterLabel } from '../statusbar/derive'
import { useContextReading } from '../statusbar/useContextReading'
import { invoke, useApp } from '../state/store'
import { Dialog } from './Dialog'
import { indexSummary } from './indexSummary'

/** Everything about where things stand, in one place: the palette's Status. */
export function StatusDialog({ onClose }: { onClose(): void }): React.JSX.Element {
  const info = useApp((s) => s.info)
  const project = useApp((s) => s.project)
  const view = useApp((s) => s.view)
  const sessionId = useApp((s) => s.sessionId)
  const choice = useEffectiveChoice()
  const policy = useEffectivePolicy()
  const context = useContextReading()
  const [index, setIndex] = useState<{ repo: string; text: string } | null>(null)

  useEffect(() => {
    if (!project) return
    let live = true
    invoke('index/status', { repo: project.repo })
      .then((r) => live && setIndex({ repo: project.repo, text: indexSummary(r.status, Date.now()) }))
      .catch(() => live && setIndex({ repo: project.repo, text: 'Could not be read' }))
    return () => {
      live = false
    }
  }, [project])

  const sep = info?.dataDir.includes('\\') && !info.dataDir.includes('/') ? '\\' : '/'
  const tools = view.steps.filter((s) => s.kind === 'tool').length
  const rows: [string, string][] = [
    ['Model', choice?.model ?? '—'],
    ['Provider', providerLabel(choice?.provider) || '—'],
    ['Approval policy', policy ?? '—'],
    ['Project', project ? `${project.repo}${project.branch ? ` (${project.branch})` : ''}` : 'None open'],
    ['Chat', sessionId ?? 'None open'],
    [
      'Context',
      sessionId
        ? context
          ? meterLabel(context).replace(/^Context window:? /, '')
          : 'Not measured yet'
        : '—',
    ],
    [
      'Tokens',
      sessionId
        ? `${view.usage.inputTokens.toLocaleString('en-US')} in, ${view.usage.outputTokens.toLocaleString('en-US')} out`
        : '—',
    ],
    ['Steps', sessionId ? `${view.modelSteps} model, ${tools} tool` : '—'],
    [
      'Sandbox',
      info
        ? info.sandbox.available
          ? `On${sandboxKind(info.sandbox.summary)}`
          : `Off${info.sandbox.reason ? `: ${info.sandbox.reason}` : ''}`
        : '—',
    ],
    ...sandboxGuarantees(info?.sandbox.summary),
    ['Code index', project ? (index?.repo === project.repo ? index.text : 'Reading…') : '—'],
    ['Data folder', info?.dataDir ?? '—'],
    ['Database', info ? `${info.dataDir}${sep}stepwise.db` : '—'],
    ['Version', info ? `${info.version} (${info.host})` : '—'],
  ]

  return (
    <Dialog title="Status" onClose={onClose} testId="status-dialog">
      <table className="palette-table">
        <tbody>
          {rows.map(([name, value]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td>{value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  )
}

/** `sandboxed (bubblewrap): a, b` → ` (bubblewrap)`: which sandbox is on. */
function sandboxKind(summary: string | undefined): string {
  const kind = /^sandboxed \(([^)]+)\)/.exec(summary ?? '')
  return kind ? ` (${kind[1]})` : ''
}

/**
 * What the sandbox was seen to hold, one row: the probe's summary lists each
 * guarantee after the colon (`user namespace, capabilities dropped, …`).
 */
function sandboxGuarantees(summary: string | undefined): [string, string][] {
  const colon = summary?.indexOf(': ') ?? -1
  if (!summary || colon < 0 || !summary.startsWith('sandboxed')) return []
  const held = summary.slice(colon + 2)
  return [['Sandbox holds', held.charAt(0).toUpperCase() + held.slice(1)]]
}
