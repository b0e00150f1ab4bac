import type React from 'react'
import { useId, useState, type FormEvent } from 'react'

/** A model by id, for one the server does not list (or while it cannot be reached). */
export function ModelIdForm({ onUse }: { onUse(model: string): void }): React.JSX.Element {
  const id = useId()
  const [model, setModel] = useState('')
  const submit = (event: FormEvent): void => {
    event.preventDefault()
    if (model.trim()) onUse(model.trim())
  }
  return (
    <form className="model-picker-section" onSubmit={submit} aria-label="Model by id">
      <label className="ui-label" htmlFor={id}>
        Or type a model id
      </label>
      <div className="ui-row">
        <input
          id={id}
          className="ui-input"
          value={model}
          spellCheck={false}
          autoComplete="off"
          placeholder="e.g. gpt-4.1-mini"
          onChange={(e) => setModel(e.target.value)}
        />
        <button type="submit" className="ui-button" disabled={!model.trim()}>
          Use
        </button>
      </div>
    </form>
  )
}
