import type React from 'react'
import type { TimelineStep } from '../../../shared/reducer'
import { CodeBlock, DiffBlock, Fields, OutputBlock, Section } from './blocks'
import { approvalText } from './describe'
import { formatDuration, prettyJson } from './format'

type ToolStep = Extract<TimelineStep, { kind: 'tool' }>

const STATUS_TEXT: Record<ToolStep['status'], string> = {
  running: 'running',
  waiting: 'waiting for approval',
  ok: 'succeeded',
  error: 'failed',
  rejected: 'rejected',
}

function Approval({ approval }: { approval: NonNullable<ToolStep['approval']> }): React.JSX.Element {
  const pending = approval.decision === 'pending'
  return (
    <Section title="Approval">
      <Fields
        fields={[
          ['Decision', <span className={pending ? 'sd-warn' : undefined}>{approvalText(approval)}</span>],
          ['By', pending ? undefined : approval.by],
          ['Reason', approval.reason],
          ['Requested at', `#${approval.requestedSeq}`],
        ]}
      />
      {approval.diff && <DiffBlock diff={approval.diff} label="Proposed change" />}
    </Section>
  )
}

/** Everything about one tool call: arguments, approval, streamed output, result. */
export function ToolDetails({ step }: { step: ToolStep }): React.JSX.Element {
  return (
    <>
      <Fields
        fields={[
          ['Tool', <code>{step.name}</code>],
          [
            'Status',
            <span className={`sd-status sd-status-${step.status}`} data-status={step.status}>
              {STATUS_TEXT[step.status]}
            </span>,
          ],
          ['Changes files', step.mutating ? 'yes' : 'no'],
          ['Duration', step.durationMs === undefined ? undefined : formatDuration(step.durationMs)],
          ['Call id', <code>{step.callId}</code>],
        ]}
      />
      <Section title="Arguments">
        <CodeBlock text={prettyJson(step.args) || '{}'} label="Arguments" />
      </Section>
      {step.approval && <Approval approval={step.approval} />}
      {step.output !== '' && (
        <Section title="Output">
          <OutputBlock output={step.output} />
        </Section>
      )}
      {step.result !== undefined && (
        <Section title="Result">
          <CodeBlock text={prettyJson(step.result)} label="Result" />
        </Section>
      )}
    </>
  )
}
