import type React from 'react'
import { useId, useState, type FormEvent } from 'react'
import { isPulling } from './format'
import { startPull, usePullProgress } from './pull'
import { PullProgressBar } from './PullProgressBar'

interface PullFormProps {
  baseUrl?: string
  /** Offered once the pull succeeded: use the new model. */
  onUse(model: string): void
}

/** "Pull a model" for Ollama: a name, a Pull button, and the pull's progress. */
export function PullForm({ baseUrl, onUse }: PullFormProps): React.JSX.Element {
  const id = useId()
  const [name, setName] = useState('')
  const [pulled, setPulled] = useState<string | null>(null)
  const progress = usePullProgress(pulled)
  const busy = isPulling(progress)

  const submit = (event: FormEvent): void => {
    event.preventDefault()
    const model = name.trim()
    if (!model || busy) return
    setPulled(model)
    startPull(model, baseUrl).catch(() => undefined) // the error is toasted and shown on the bar
  }

  return (
    <form className="model-picker-section" onSubmit={submit} aria-label="Pull a model">
      <label className="ui-label" htmlFor={id}>
        Pull a model
      </label>
      <div className="ui-row">
        <input
          id={id}
          className="ui-input"
          data-testid="pull-model-name"
          value={name}
          placeholder="e.g. qwen2.5-coder:7b"
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => setName(e.target.value)}
        />
        <button type="submit" className="ui-button" data-testid="pull-model" disabled={!name.trim() || busy}>
          {busy ? 'Pulling…' : 'Pull'}
        </button>
      </div>
      {pulled && <PullProgressBar model={pulled} />}
      {pulled && progress?.done && !progress.error && (
        <div className="ui-row">
          <button type="button" className="ui-button small primary" onClick={() => onUse(pulled)}>
            Use {pulled}
          </button>
        </div>
      )}
      <p className="ui-note">
        Names as on ollama.com/library. Large models need the memory to match (a 7B model needs about 8 GB).
      </p>
    </form>
  )
}
