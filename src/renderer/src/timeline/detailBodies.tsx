import type React from 'react'
import type { TimelineStep } from '../../../shared/reducer'
import { choiceLabel } from '../models/format'
import { CodeBlock, Fields, Section } from './blocks'
import { formatDuration, formatTokens, prettyJson } from './format'
import { Markdown } from './Markdown'
import { useStepNumberAfter } from '../replay/stepNumbers'
import { ToolDetails } from './ToolDetails'

/* The body of the details pane for each kind of step. */

type Step<K extends TimelineStep['kind']> = Extract<TimelineStep, { kind: K }>

function Paths({ paths }: { paths: readonly string[] }): React.JSX.Element | null {
  if (paths.length === 0) return null
  return (
    <Section title={`Files (${paths.length})`}>
      <ul className="sd-paths">
        {paths.map((p) => (
          <li key={p}>
            <code>{p}</code>
          </li>
        ))}
      </ul>
    </Section>
  )
}

const MODEL_STATUS = {
  streaming: 'streaming…',
  ok: 'done',
  interrupted: 'interrupted: the turn ended before this answer was whole',
} as const

function ModelDetails({ step }: { step: Step<'model'> }): React.JSX.Element {
  return (
    <>
      <Fields
        fields={[
          ['Status', MODEL_STATUS[step.status]],
          ['Tokens in', step.usage && formatTokens(step.usage.inputTokens)],
          ['Tokens out', step.usage && formatTokens(step.usage.outputTokens)],
          ['Duration', step.durationMs === undefined ? undefined : formatDuration(step.durationMs)],
          ['Retries', step.retries > 0 ? String(step.retries) : undefined],
        ]}
      />
      {step.text.trim() !== '' ? (
        <Markdown text={step.text} />
      ) : (
        <p className="sd-note">{step.status === 'streaming' ? 'Waiting for text…' : 'No text.'}</p>
      )}
      {step.toolCalls.length > 0 && (
        <Section title={`Tool calls (${step.toolCalls.length})`}>
          {step.toolCalls.map((call) => (
            <div key={call.id} className="sd-call">
              <code className="sd-call-name">{call.name}</code>
              <CodeBlock text={prettyJson(call.arguments)} label={`Arguments of ${call.name}`} />
            </div>
          ))}
        </Section>
      )}
    </>
  )
}

function CompactionDetails({ step }: { step: Step<'compaction'> }): React.JSX.Element {
  const saved = step.beforeTokens - step.afterTokens
  const percent = step.beforeTokens > 0 ? Math.round((saved / step.beforeTokens) * 100) : 0
  return (
    <>
      <Fields
        fields={[
          ['Why', step.onRequest ? 'asked for (/compact)' : 'the window was filling'],
          ['Focus', step.onRequest?.focus],
          ['Before', `${formatTokens(step.beforeTokens)} tokens`],
          ['After', `${formatTokens(step.afterTokens)} tokens`],
          ['Saved', `${formatTokens(saved)} tokens (${percent}%)`],
        ]}
      />
      {step.summary && (
        <Section title="Summary the model works from">
          <Markdown text={step.summary} />
        </Section>
      )}
    </>
  )
}

function FindingDetails({ step }: { step: Step<'finding'> }): React.JSX.Element {
  const f = step.finding
  return (
    <>
      <Fields
        fields={[
          ['Severity', <span className={`sd-sev sd-sev-${f.severity}`}>{f.severity}</span>],
          ['Category', f.category],
          ['Location', <code>{`${f.file}:${f.line}`}</code>],
        ]}
      />
      <Markdown text={f.message} />
      {f.suggestion && (
        <Section title="Suggestion">
          <Markdown text={f.suggestion} />
        </Section>
      )}
    </>
  )
}

const RESTORE_TEXT = { undo: 'Undo', rewind: 'Rewind', fork: 'Fork' } as const

/** Where the state after event `seq` stands, by step number. */
function StepAfter({ seq }: { seq: number }): React.JSX.Element {
  return <>{useStepNumberAfter(seq)}</>
}

/** What a restore put back, from which snapshot, and what it saved first. */
function RestoreDetails({ step }: { step: Step<'restore'> }): React.JSX.Element {
  return (
    <>
      <Fields
        fields={[
          ['Kind', RESTORE_TEXT[step.restore]],
          ['Restored snapshot', `#${step.snapshotId}`],
          ['Saved before restoring', `#${step.savedSnapshotId}`],
          ['Back to step', step.toSeq === undefined ? undefined : <StepAfter seq={step.toSeq} />],
        ]}
      />
      <Paths paths={step.paths} />
    </>
  )
}

/** How the turn ended: why, in how many steps and tokens, how long. */
function FinishDetails({ step }: { step: Step<'finish'> }): React.JSX.Element {
  return (
    <>
      <Fields
        fields={[
          ['Ended', step.reason],
          ['Model steps', String(step.modelSteps)],
          ['Tokens', `${step.usage.inputTokens} in / ${step.usage.outputTokens} out`],
          ['Took', `${(step.durationMs / 1000).toFixed(1)} s`],
        ]}
      />
      {step.message && <p className={step.reason === 'error' ? 'sd-error' : 'sd-hint'}>{step.message}</p>}
    </>
  )
}

/** A tool call the model wrote that could not be read: the problem, the format, what was sent back. */
function UnparsedCallDetails({ step }: { step: Step<'unparsed-call'> }): React.JSX.Element {
  return (
    <>
      <p className="sd-error">{step.problem}</p>
      <Fields
        fields={[
          ['Format', step.family],
          ['Model step', String(step.step)],
        ]}
      />
      <Section title="The format asked for">
        <CodeBlock text={step.format} label="Format" />
      </Section>
      {step.repair ? (
        <Section title="Sent to the model">
          <CodeBlock text={step.repair} label="Repair message" />
        </Section>
      ) : (
        <p className="sd-hint">Second unreadable call in a row: the turn ended with the text as written.</p>
      )}
    </>
  )
}

/** A round of the project's checks: passed or failed, and the failures. */
function VerifyDetails({ step }: { step: Step<'verify'> }): React.JSX.Element {
  return (
    <>
      <Fields
        fields={[
          [
            'Result',
            <span className={step.passed ? 'sd-ok' : 'sd-error'}>{step.passed ? 'passed' : 'failed'}</span>,
          ],
          ['Round', `${step.round} of ${step.maxRounds}`],
        ]}
      />
      {step.failures.length > 0 && (
        <Section title={`Failures (${step.failures.length})`}>
          <CodeBlock text={step.failures.join('\n\n')} label="Failures" />
        </Section>
      )}
    </>
  )
}

export function StepBody({ step }: { step: TimelineStep }): React.JSX.Element {
  switch (step.kind) {
    case 'user':
      return <Markdown text={step.text} />
    case 'model':
      return <ModelDetails step={step} />
    case 'tool':
      return <ToolDetails step={step} />
    case 'checkpoint':
      return (
        <>
          <Fields
            fields={[
              ['Snapshot', `#${step.snapshotId}`],
              ['After call', step.callId && <code>{step.callId}</code>],
            ]}
          />
          <Paths paths={step.paths} />
        </>
      )
    case 'compaction':
      return <CompactionDetails step={step} />
    case 'error':
      return (
        <>
          <p className="sd-error">{step.message}</p>
          <Fields fields={[['Code', <code>{step.code}</code>]]} />
          {step.hint && <p className="sd-hint">{step.hint}</p>}
        </>
      )
    case 'finding':
      return <FindingDetails step={step} />
    case 'restore':
      return <RestoreDetails step={step} />
    case 'switch':
      return (
        <Fields
          fields={[
            ['Model', choiceLabel(step.provider, step.model)],
            ['Server', step.baseUrl && <code>{step.baseUrl}</code>],
            ['Before', step.from && choiceLabel(step.from.provider, step.from.model)],
          ]}
        />
      )
    case 'fork':
      return (
        <Fields
          fields={[
            ['New session', <code>{step.childSessionId}</code>],
            ['Forked at', step.atStep === undefined ? `event ${step.atSeq}` : `step ${step.atStep}`],
          ]}
        />
      )
    case 'finish':
      return <FinishDetails step={step} />
    case 'unparsed-call':
      return <UnparsedCallDetails step={step} />
    case 'verify':
      return <VerifyDetails step={step} />
  }
}
