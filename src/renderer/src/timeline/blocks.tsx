import { useLayoutEffect, useRef, useState } from 'react'
import type React from 'react'
import { diffRuns } from './diffLines'
import { headLines, tailText } from './format'

/*
 * The building blocks of the details pane: labelled fields, collapsible code, a
 * coloured diff and a tool's streamed output.
 */

export type FieldList = ReadonlyArray<readonly [label: string, value: React.ReactNode]>

/** Label/value pairs; pairs whose value is undefined, null or '' are left out. */
export function Fields({ fields }: { fields: FieldList }): React.JSX.Element {
  return (
    <dl className="sd-fields">
      {fields
        .filter(([, value]) => value !== undefined && value !== null && value !== '')
        .map(([label, value]) => (
          <div key={label} className="sd-field">
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
    </dl>
  )
}

export function Section({
  title,
  children,
}: {
  title: string
  children: React.ReactNode
}): React.JSX.Element {
  return (
    <section className="sd-section">
      <h3>{title}</h3>
      {children}
    </section>
  )
}

const COLLAPSED_LINES = 24

/** Preformatted text; past COLLAPSED_LINES lines it shows the head and a "Show all" toggle. */
export function CodeBlock({ text, label }: { text: string; label: string }): React.JSX.Element {
  const [expanded, setExpanded] = useState(false)
  const { head, hidden } = headLines(text, COLLAPSED_LINES)
  return (
    <div className="sd-code">
      <pre aria-label={label} tabIndex={0}>
        <code>{expanded || hidden === 0 ? text : head}</code>
      </pre>
      {hidden > 0 && (
        <button
          type="button"
          className="sd-toggle"
          aria-expanded={expanded}
          onClick={() => setExpanded(!expanded)}
        >
          {expanded ? 'Show less' : `Show all (${hidden} more ${hidden === 1 ? 'line' : 'lines'})`}
        </button>
      )}
    </div>
  )
}

/** A unified diff with added lines in green and removed lines in red. */
export function DiffBlock({ diff, label }: { diff: string; label: string }): React.JSX.Element {
  return (
    <pre className="sd-diff" aria-label={label} tabIndex={0}>
      {diffRuns(diff).map((run, i) => (
        <span key={i} className={`sd-diff-${run.kind}`}>
          {run.text}
        </span>
      ))}
    </pre>
  )
}

/** Longer output than this shows only its end: a build log can run to megabytes. */
const OUTPUT_CHARS = 200_000
const STICK_SLACK = 24

/** A tool's streamed output, kept scrolled to its end while it grows unless the user scrolled up. */
export function OutputBlock({ output }: { output: string }): React.JSX.Element {
  const ref = useRef<HTMLPreElement>(null)
  const stick = useRef(true)
  const shown = tailText(output, OUTPUT_CHARS)
  useLayoutEffect(() => {
    const el = ref.current
    if (el && stick.current) el.scrollTop = el.scrollHeight
  }, [shown.text])
  const onScroll = (): void => {
    const el = ref.current
    if (el) stick.current = el.scrollHeight - el.scrollTop - el.clientHeight <= STICK_SLACK
  }
  return (
    <>
      {shown.cut > 0 && (
        <p className="sd-note">
          Showing the last {Math.round(OUTPUT_CHARS / 1000)}k characters of the output.
        </p>
      )}
      <pre ref={ref} className="sd-output" aria-label="Output" tabIndex={0} onScroll={onScroll}>
        {shown.text}
      </pre>
    </>
  )
}
