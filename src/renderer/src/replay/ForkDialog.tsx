import { useState } from 'react'
import type React from 'react'
import type { ForkPart } from '../../../shared/protocol'
import { currentChoice } from '../models/choice'
import { Dialog } from '../palette/Dialog'
import { invoke, loadSession, toast, useApp } from '../state/store'
import { exitReplay } from './useReplay'

type Where = 'in-place' | 'worktree'

const PARTS: ReadonlyArray<{ value: ForkPart; label: string; hint: string }> = [
  { value: 'both', label: 'Conversation and files', hint: 'continue from this step as it was' },
  { value: 'conversation', label: 'Conversation only', hint: 'the files stay as they are now' },
  { value: 'files', label: 'Files only', hint: 'a new chat on the files as at this step' },
]

/**
 * Forking from a replayed step: what to take (the conversation, the files or both), where the
 * files go (put back in the project folder, the present saved first so an undo brings it back;
 * or a new git worktree beside the repository, the project left alone), and which model the
 * fork continues on. The core does the work (`session/fork`); the fork opens, the parent's
 * replay ends.
 */
export function ForkDialog({
  sessionId,
  seq,
  step,
  onClose,
}: {
  sessionId: string
  /** The seq of the step's last event: what the core forks at. */
  seq: number
  step: number
  onClose(): void
}): React.JSX.Element {
  const { models, picked } = useForkModels()
  const [what, setWhat] = useState<ForkPart>('both')
  const [where, setWhere] = useState<Where>('in-place')
  const [model, setModel] = useState<ForkModel['key']>(models[0]?.key ?? 'parent')
  const [busy, setBusy] = useState(false)
  const effectiveWhere: Where = what === 'conversation' ? 'in-place' : where

  const fork = async (): Promise<void> => {
    setBusy(true)
    try {
      const reply = await invoke('session/fork', {
        sessionId,
        atSeq: seq,
        what,
        where: effectiveWhere,
        ...(model === 'picked' && picked ? picked : {}),
      })
      exitReplay()
      onClose()
      const place = effectiveWhere === 'worktree' ? ` Its files are in the worktree ${reply.repo}.` : ''
      toast('info', `Forked at step ${step}: “${reply.title}”.${place} Continue the chat there.`)
      await loadSession(reply.sessionId)
    } catch {
      setBusy(false) // toasted by invoke; the dialog stays for another try
    }
  }

  return (
    <Dialog
      title={`Fork from step ${step}`}
      onClose={onClose}
      className="fork-dialog"
      testId="fork-dialog"
      description="A new chat, “Fork of …”, beside this one. This chat is not changed."
    >
      <TakeFieldset what={what} onChange={setWhat} />
      <WhereFieldset what={what} where={effectiveWhere} onChange={setWhere} />
      <ModelField models={models} model={model} onChange={setModel} />
      <div className="actions">
        <button type="button" className="ui-button" onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          className="ui-button primary"
          data-testid="fork-confirm"
          disabled={busy}
          onClick={() => void fork()}
        >
          {busy ? 'Forking…' : 'Fork'}
        </button>
      </div>
    </Dialog>
  )
}

interface ForkModel {
  key: 'parent' | 'picked'
  label: string
}

/** The models a fork may continue on: this chat's, and the one picked now when it differs. */
function useForkModels(): { models: ForkModel[]; picked: ReturnType<typeof currentChoice> } {
  const parentModel = { provider: useApp((s) => s.view.provider), model: useApp((s) => s.view.model) }
  const picked = currentChoice()
  const models: ForkModel[] = [
    ...(parentModel.provider && parentModel.model
      ? [
          {
            key: 'parent' as const,
            label: `Same as this chat: ${parentModel.model} (${parentModel.provider})`,
          },
        ]
      : []),
    ...(picked && (picked.model !== parentModel.model || picked.provider !== parentModel.provider)
      ? [{ key: 'picked' as const, label: `${picked.model} (${picked.provider}), the model picked now` }]
      : []),
  ]
  return { models, picked }
}

/** What the fork takes: the conversation, the files, or both. */
function TakeFieldset({
  what,
  onChange,
}: {
  what: ForkPart
  onChange(what: ForkPart): void
}): React.JSX.Element {
  return (
    <fieldset>
      <legend>Take</legend>
      {PARTS.map((p) => (
        <label key={p.value}>
          <input
            type="radio"
            name="fork-what"
            value={p.value}
            checked={what === p.value}
            data-autofocus={what === p.value ? true : undefined}
            onChange={() => onChange(p.value)}
          />
          <span>
            {p.label} <small>— {p.hint}</small>
          </span>
        </label>
      ))}
    </fieldset>
  )
}

/** Where the fork's files go: put back in this folder, or in a new git worktree. */
function WhereFieldset({
  what,
  where,
  onChange,
}: {
  what: ForkPart
  where: Where
  onChange(where: Where): void
}): React.JSX.Element {
  return (
    <fieldset disabled={what === 'conversation'}>
      <legend>Files</legend>
      <label>
        <input
          type="radio"
          name="fork-where"
          value="in-place"
          checked={where === 'in-place'}
          onChange={() => onChange('in-place')}
        />
        <span>
          In this project folder{' '}
          <small>
            {what === 'conversation'
              ? '— left as they are'
              : '— put back as at this step; the present is saved first, so an undo brings it back'}
          </small>
        </span>
      </label>
      <label>
        <input
          type="radio"
          name="fork-where"
          value="worktree"
          checked={where === 'worktree'}
          onChange={() => onChange('worktree')}
        />
        <span>
          In a new git worktree <small>— a folder beside the repository; this project is left alone</small>
        </span>
      </label>
    </fieldset>
  )
}

/** Which model the fork continues on: a choice when there are two, else a note. */
function ModelField({
  models,
  model,
  onChange,
}: {
  models: readonly ForkModel[]
  model: ForkModel['key']
  onChange(model: ForkModel['key']): void
}): React.JSX.Element {
  return (
    <>
      {models.length > 1 && (
        <fieldset>
          <legend>Model</legend>
          <select
            aria-label="Model for the fork"
            value={model}
            onChange={(e) => {
              const chosen = models.find((m) => m.key === e.target.value)
              if (chosen) onChange(chosen.key)
            }}
          >
            {models.map((m) => (
              <option key={m.key} value={m.key}>
                {m.label}
              </option>
            ))}
          </select>
        </fieldset>
      )}
      {models.length === 1 && (
        <p className="note">Continues on {models[0].label.replace(/^Same as this chat: /, '')}.</p>
      )}
    </>
  )
}
