import type React from 'react'
import type { CheckpointStep, IgnoredFileChange, ToolStep } from '../../../shared/reducer'
import { useDisplayedView } from '../replay/useReplay'
import { ruleLabel } from '../../../shared/approval-rules'
import { mcpDescriptionText } from '../approval/mcpCall'
import { formatBytes, shownImage } from './attachments'
import { CodeBlock, DiffBlock, Fields, OutputBlock, Section } from './blocks'
import { checkpointOf } from './fold'
import { ResultBlock } from './ResultBlock'
import { resultView } from './resultView'
import { approvalText, mcpToolOf, toolTitle } from './describe'
import { formatDuration, prettyJson } from './format'
import { toolOutcome, toolTimes } from './outcome'

const STATUS_TEXT: Record<ToolStep['status'], string> = {
  running: 'running',
  waiting: 'waiting for approval',
  ok: 'succeeded',
  error: 'failed',
  rejected: 'rejected',
}

function Approval({
  approval,
  showDiff,
}: {
  approval: NonNullable<ToolStep['approval']>
  showDiff: boolean
}): React.JSX.Element {
  const pending = approval.decision === 'pending'
  return (
    <Section title="Approval">
      <Fields
        fields={[
          ['Decision', <span className={pending ? 'sd-warn' : undefined}>{approvalText(approval)}</span>],
          ['By', pending ? undefined : approval.by],
          ['Reason', approval.reason],
          ['Rule', approval.rule ? <code>{ruleLabel(approval.rule.pattern)}</code> : undefined],
          ['Requested at', `#${approval.requestedSeq}`],
        ]}
      />
      {showDiff && approval.diff && <DiffBlock diff={approval.diff} label="Proposed change" />}
    </Section>
  )
}

/** Images the tool returned, each as an <img> (or a note saying why it is not shown). */
function Images({ step }: { step: ToolStep }): React.JSX.Element | null {
  const attachments = step.attachments ?? []
  if (attachments.length === 0) return null
  const from = toolTitle(step)
  return (
    <Section title={attachments.length === 1 ? 'Image' : `Images (${attachments.length})`}>
      <div className="sd-images">
        {attachments.map((a, i) => {
          const shown = shownImage(a, i, attachments.length, from)
          return shown.kind === 'image' ? (
            <figure key={i} className="sd-image">
              <img src={shown.src} alt={shown.alt} data-testid="step-image" />
              <figcaption>{`${shown.mimeType}, ${formatBytes(shown.bytes)}`}</figcaption>
            </figure>
          ) : (
            <p key={i} className="sd-note">
              {shown.text}
            </p>
          )
        })}
      </div>
    </Section>
  )
}

/** The checkpoint taken after the call: what it saved, and the files that instruct agents. */
function Checkpoint({ checkpoint }: { checkpoint: CheckpointStep }): React.JSX.Element {
  return (
    <Section title="Checkpoint">
      <Fields
        fields={[
          ['Snapshot', `#${checkpoint.snapshotId}`],
          ['Files', checkpoint.paths.length === 0 ? 'none changed' : checkpoint.paths.join(', ')],
          [
            'Instructs agents',
            checkpoint.agentFiles && (
              <span className="sd-warn">changed without asking: {checkpoint.agentFiles.join(', ')}</span>
            ),
          ],
          [
            'Ignored folders',
            checkpoint.ignored && (
              <ul className="sd-list" data-testid="checkpoint-ignored">
                {checkpoint.ignored.map((c) => (
                  <li key={c.path}>{ignoredLine(c)}</li>
                ))}
              </ul>
            ),
          ],
        ]}
      />
    </Section>
  )
}

/** A file the command changed under an ignored folder (not in the snapshot): what, where, how big. */
function ignoredLine(c: IgnoredFileChange): string {
  const size = c.size === undefined ? '' : ` (${formatBytes(c.size)}${c.stored ? ', kept' : ''})`
  return `${c.status} ${c.path}${size}`
}

/** Everything about one tool call: arguments, approval, streamed output, result, checkpoint. */
export function ToolDetails({ step }: { step: ToolStep }): React.JSX.Element {
  const steps = useDisplayedView().steps
  const checkpoint = step.checkpoint ?? checkpointOf(steps, step.callId)
  const result = resultView(step)
  // The change applied is shown as the result: the approval does not repeat it.
  const showProposal = result?.kind !== 'diff'
  const mcp = mcpToolOf(step)
  // The server's words, untrusted: plain text, capped.
  const description = mcpDescriptionText(step.mcp?.description)
  const times = toolTimes(step)
  return (
    <>
      <Fields
        fields={[
          ['MCP server', mcp && <code>{mcp.server}</code>],
          ['Tool', <code>{mcp ? mcp.tool : step.name}</code>],
          ['Called as', mcp && <code>{step.name}</code>],
          [
            'Status',
            <span className={`sd-status sd-status-${step.status}`} data-status={step.status}>
              {STATUS_TEXT[step.status]}
            </span>,
          ],
          ['Outcome', toolOutcome(step)],
          ['Ran for', times.runMs === undefined ? undefined : formatDuration(times.runMs)],
          ['Waited for you', times.waitMs === undefined ? undefined : formatDuration(times.waitMs)],
          ['Call id', <code>{step.callId}</code>],
        ]}
      />
      <Section title="Arguments">
        <CodeBlock text={prettyJson(step.args) || '{}'} label="Arguments" />
      </Section>
      {description && (
        <Section title="What the server says this tool does">
          <p className="sd-note">{description.text}</p>
        </Section>
      )}
      {step.approval && <Approval approval={step.approval} showDiff={showProposal} />}
      {step.output !== '' && result?.kind !== 'terminal' && (
        <Section title="Output">
          <OutputBlock output={step.output} />
        </Section>
      )}
      <Images step={step} />
      {result && step.result && <ResultBlock view={result} raw={step.result} />}
      {checkpoint && <Checkpoint checkpoint={checkpoint} />}
    </>
  )
}
