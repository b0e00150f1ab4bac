import type React from 'react'
import { CodeBlock, DiffBlock, OutputBlock, Section } from './blocks'
import { prettyJson } from './format'
import type { ResultView } from './resultView'

/** A tool's result as a person reads it (resultView.ts), with the raw JSON one click away. */
export function ResultBlock({
  view,
  raw,
}: {
  view: ResultView
  raw: Record<string, unknown>
}): React.JSX.Element {
  return (
    <Section title={TITLES[view.kind]}>
      <ResultBody view={view} />
      {view.kind !== 'json' && (
        <details className="sd-raw">
          <summary>Result as the model got it (JSON)</summary>
          <CodeBlock text={prettyJson(raw)} label="Raw result" />
        </details>
      )}
    </Section>
  )
}

const TITLES: Record<ResultView['kind'], string> = {
  read: 'Read',
  diff: 'Change applied',
  terminal: 'Terminal',
  error: 'Error',
  json: 'Result',
}

function ResultBody({ view }: { view: ResultView }): React.JSX.Element {
  switch (view.kind) {
    case 'read':
      return (
        <div data-testid="result-read">
          <p className="sd-result-head">
            <code>{view.path}</code>
            {view.range && <span className="sd-result-range"> · {view.range}</span>}
          </p>
          <CodeBlock text={view.content} label={`Text of ${view.path}`} />
          {view.note && <p className="sd-note">{view.note}</p>}
        </div>
      )
    case 'diff':
      return (
        <div data-testid="result-diff">
          {(view.path || view.summary) && (
            <p className="sd-result-head">
              {view.path && <code>{view.path}</code>}
              {view.summary && <span className="sd-result-range"> · {view.summary}</span>}
            </p>
          )}
          <DiffBlock diff={view.diff} label="Applied diff" />
        </div>
      )
    case 'terminal':
      return (
        <div className="sd-terminal" data-testid="result-terminal">
          {view.command && (
            <p className="sd-terminal-command">
              <span aria-hidden="true">$ </span>
              <code>{view.command}</code>
            </p>
          )}
          <OutputBlock output={view.output} />
          {view.end && (
            <p
              className={view.failed ? 'sd-terminal-end sd-error' : 'sd-terminal-end sd-ok'}
              data-testid="result-exit"
            >
              {view.end}
            </p>
          )}
        </div>
      )
    case 'error':
      return <p className="sd-error">{view.message}</p>
    case 'json':
      return <CodeBlock text={view.text} label="Result" />
  }
}
