import type React from 'react'
import { useEffect, useId, useState } from 'react'
import { formFields, readAnswer, type FormField } from '../../../shared/mcp-elicitation-form'
import { ApprovalActions } from '../approval/ApprovalActions'
import { ApprovalHeader } from '../approval/ApprovalFrame'
import { plainText } from './model'
import { answerElicitation, loadElicitations, useMcpUi } from './mcpState'
import type { McpElicitationView } from './types'

/*
 * A server's question (elicitation), shown like an approval — the approvals' header and buttons
 * (approval/ApprovalFrame.tsx, ApprovalActions.tsx) — and answered here whatever the approval policy: a form built from the server's schema (defaults filled in), or a URL to open.
 * The server's text is untrusted: shown as plain text, and a URL only as an http(s) link.
 */

type Values = Record<string, string | boolean>

function initialValues(fields: FormField[]): Values {
  return Object.fromEntries(
    fields.map((f) => [
      f.name,
      f.type === 'boolean' ? f.default === true : f.default !== undefined ? String(f.default) : '',
    ]),
  )
}

/** The typed answer, or the first field's problem. */
export function formContent(
  fields: FormField[],
  values: Values,
): { content?: Record<string, string | number | boolean>; error?: string } {
  const content: Record<string, string | number | boolean> = {}
  for (const field of fields) {
    const raw = values[field.name]
    if (typeof raw === 'boolean') {
      content[field.name] = raw
      continue
    }
    const { value, error } = readAnswer(field, raw ?? '')
    if (error) return { error: `${field.title}: ${error}` }
    if (value !== undefined) content[field.name] = value
  }
  return { content }
}

function safeLink(url: string | undefined): string | undefined {
  if (!url || !URL.canParse(url)) return undefined
  const { protocol } = new URL(url)
  return protocol === 'https:' || protocol === 'http:' ? url : undefined
}

function Field({
  field,
  value,
  onChange,
}: {
  field: FormField
  value: string | boolean
  onChange(v: string | boolean): void
}) {
  const id = useId()
  const label = `${field.title}${field.required ? ' *' : ''}`
  if (field.type === 'boolean')
    return (
      <label className="mcp-elicit-field checkbox" htmlFor={id}>
        <input
          id={id}
          type="checkbox"
          checked={value === true}
          onChange={(e) => onChange(e.target.checked)}
          data-testid="mcp-elicit-input"
          data-field={field.name}
        />
        {plainText(label)}
      </label>
    )
  return (
    <label className="mcp-elicit-field" htmlFor={id}>
      <span>{plainText(label)}</span>
      {field.description && <span className="ui-note">{plainText(field.description)}</span>}
      {field.choices ? (
        <select
          id={id}
          value={String(value)}
          onChange={(e) => onChange(e.target.value)}
          data-testid="mcp-elicit-input"
          data-field={field.name}
        >
          {!field.required && <option value="">—</option>}
          {field.choices.map((c) => (
            <option key={c.value} value={c.value}>
              {plainText(c.label)}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          type={field.type === 'string' ? 'text' : 'number'}
          value={String(value)}
          onChange={(e) => onChange(e.target.value)}
          data-testid="mcp-elicit-input"
          data-field={field.name}
        />
      )}
    </label>
  )
}

interface QuestionBodyProps {
  question: McpElicitationView
  fields: readonly FormField[]
  values: Values
  onChange(name: string, value: string | boolean): void
}

/** What the server asks for: a page to open (url mode), or the form's fields. */
function QuestionBody({ question, fields, values, onChange }: QuestionBodyProps): React.JSX.Element {
  const link = safeLink(question.url)
  return (
    <>
      {question.mode === 'url' ? (
        <p className="mcp-elicit-url">
          <code>{plainText(question.url ?? '')}</code>{' '}
          {link && (
            <a href={link} target="_blank" rel="noreferrer noopener" data-testid="mcp-elicit-open">
              Open
            </a>
          )}
        </p>
      ) : (
        fields.map((f) => (
          <Field key={f.name} field={f} value={values[f.name]} onChange={(v) => onChange(f.name, v)} />
        ))
      )}
    </>
  )
}

/** Answering the question: once (the buttons stay disabled until the card goes), a form checked first. */
function useAnswer(question: McpElicitationView, fields: FormField[], values: Values) {
  const [error, setError] = useState<string | null>(null)
  // Answered: the buttons stay disabled until the card goes, so nothing is sent twice.
  const [sent, setSent] = useState(false)
  const answer = (
    action: 'accept' | 'decline' | 'cancel',
    content?: Record<string, string | number | boolean>,
  ) => {
    setSent(true)
    void answerElicitation(question.id, action, content).finally(() => setSent(false))
  }
  const submit = () => {
    if (question.mode === 'url') return answer('accept')
    const { content, error: problem } = formContent(fields, values)
    if (problem) return setError(problem)
    answer('accept', content)
  }
  return { sent, error, submit, answer }
}

export function ElicitationCard({ question }: { question: McpElicitationView }): React.JSX.Element {
  const fields = formFields(question.requestedSchema)
  const [values, setValues] = useState<Values>(() => initialValues(fields))
  const titleId = useId()
  const { sent, error, submit, answer } = useAnswer(question, fields, values)
  return (
    <form
      className="mcp-elicit"
      onSubmit={(e) => {
        e.preventDefault()
        submit()
      }}
      // Enter in a field submits, as it did with a submit button (the frame's buttons are plain).
      onKeyDown={(e) => {
        const field = e.target
        if (e.key !== 'Enter' || !(field instanceof HTMLInputElement) || field.type === 'checkbox') return
        e.preventDefault()
        submit()
      }}
      data-testid="mcp-elicitation"
      data-server={question.server}
      aria-labelledby={titleId}
    >
      <ApprovalHeader
        titleId={titleId}
        kind="mcp"
        badge="Question"
        heading="The server asks"
        preposition="MCP server"
        tool={plainText(question.server)}
      />
      <p className="mcp-elicit-message">{plainText(question.message)}</p>
      <QuestionBody
        question={question}
        fields={fields}
        values={values}
        onChange={(name, v) => setValues((s) => ({ ...s, [name]: v }))}
      />
      {error && (
        <p className="mcp-error" role="alert" data-testid="mcp-elicit-error">
          {error}
        </p>
      )}
      <ApprovalActions
        acceptLabel={question.mode === 'url' ? 'Done' : 'Submit'}
        resolved={sent}
        rejecting={false}
        onRejectingChange={() => {}}
        onAccept={submit}
        onReject={() => answer('decline')}
        answer={{
          rejectLabel: 'Decline',
          acceptTestId: 'mcp-elicit-accept',
          rejectTestId: 'mcp-elicit-decline',
          noKeys: true,
        }}
      >
        <button
          type="button"
          className="approval-button"
          data-testid="mcp-elicit-cancel"
          disabled={sent}
          onClick={() => answer('cancel')}
        >
          Cancel
        </button>
      </ApprovalActions>
    </form>
  )
}

/** Mounted with the MCP root: every question waiting, oldest first. */
export function ElicitationCards(): React.JSX.Element | null {
  const pending = useMcpUi((s) => s.elicitations)
  useEffect(() => void loadElicitations(), [])
  if (pending.length === 0) return null
  return (
    <div className="mcp-elicit-stack" role="region" aria-label="Questions from MCP servers">
      {pending.map((q) => (
        <ElicitationCard key={q.id} question={q} />
      ))}
    </div>
  )
}
