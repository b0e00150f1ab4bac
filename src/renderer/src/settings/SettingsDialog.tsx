import type React from 'react'
import { useId, useState, type FormEvent } from 'react'
import { appSettingsSchema, type AppSettings, type ApprovalPolicy } from '../../../shared/protocol'
import { NotificationSettings } from '../attention/NotificationSettings'
import { McpRoot } from '../mcp/McpDialog'
import { ApprovalRules } from './ApprovalRules'
import { McpSettingsRow } from '../mcp/McpSettingsRow'
import { Dialog } from '../palette/Dialog'
import { saveSettings, toast, useApp } from '../state/store'
import {
  FIELD_GROUPS,
  fromDraft,
  toDraft,
  type DraftErrors,
  type FieldSpec,
  type SettingsDraft,
} from './form'
import { POLICIES, POLICY_INFO, setSessionPolicy } from './policy'
import { closeSettings } from './settingsUi'
import { applyTheme, useApplyTheme } from './theme'
import './settings.css'

/**
 * Mount once at the root: applies the saved theme, and holds the MCP servers' root (their
 * dialog's listeners, their questions, a project's `.mcp.json`).
 */
export function SettingsRoot(): React.JSX.Element {
  useApplyTheme()
  return <McpRoot />
}

/** The settings dialog: a panel (settings/contribution.tsx) that `openSettings()` opens. */
export function SettingsDialog({ onClose }: { onClose(): void }): React.JSX.Element {
  const settings = useApp((s) => s.settings)
  return (
    <Dialog title="Settings" onClose={onClose} className="settings-dialog" testId="settings-dialog">
      {settings ? <SettingsForm settings={settings} /> : <p className="ui-note">Loading settings…</p>}
    </Dialog>
  )
}

/** The draft, its errors and its save: what the form's rows edit. */
function useSettingsDraft(settings: AppSettings) {
  const [draft, setDraft] = useState<SettingsDraft>(() => toDraft(settings))
  const [errors, setErrors] = useState<DraftErrors>({})
  const [saving, setSaving] = useState(false)
  const sessionId = useApp((s) => s.sessionId)
  const set = <K extends keyof SettingsDraft>(key: K, value: SettingsDraft[K]): void =>
    setDraft((d) => ({ ...d, [key]: value }))

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault()
    const result = fromDraft(draft, settings)
    if (!result.ok) {
      setErrors(result.errors)
      return
    }
    setErrors({})
    setSaving(true)
    try {
      await saveSettings(result.settings)
      if (sessionId && draft.approvalPolicy !== settings.approvalPolicy)
        await setSessionPolicy(draft.approvalPolicy)
      toast('info', 'Settings saved.')
      closeSettings()
    } catch {
      // Toasted by invoke; the form keeps what was typed.
    } finally {
      setSaving(false)
    }
  }
  return { draft, errors, saving, sessionId, set, submit }
}

function SettingsForm({ settings }: { settings: AppSettings }): React.JSX.Element {
  const ids = useId()
  const { draft, errors, saving, sessionId, set, submit } = useSettingsDraft(settings)

  const changeTheme = (theme: AppSettings['theme']): void => {
    set('theme', theme)
    applyTheme(theme)
    saveSettings({ theme }).catch(() => undefined) // toasted; the look still changed for now
  }

  return (
    <form className="settings-form" onSubmit={(e) => void submit(e)} noValidate>
      <PolicyFieldset
        name={`${ids}-policy`}
        value={draft.approvalPolicy}
        sessionOpen={sessionId !== null}
        onChange={(p) => set('approvalPolicy', p)}
      />

      {FIELD_GROUPS.map((group) => (
        <fieldset
          key={group.legend}
          className={`settings-fieldset settings-columns${group.columns === 3 ? ' three' : ''}`}
          data-testid={group.testId}
        >
          <legend>{group.legend}</legend>
          {group.fields.map((spec) => (
            <DraftField
              key={spec.key}
              spec={spec}
              id={`${ids}-${spec.key}`}
              value={draft[spec.key]}
              error={errors[spec.key]}
              onChange={(v) => set(spec.key, v)}
            />
          ))}
          {group.note && <p className="ui-note settings-span">{group.note}</p>}
        </fieldset>
      ))}

      <ApprovalRules />

      <McpSettingsRow />

      <NotificationSettings />

      <div className="settings-theme">
        <label className="ui-label" htmlFor={`${ids}-theme`}>
          Theme
        </label>
        <select
          id={`${ids}-theme`}
          className="ui-select"
          data-testid="theme-select"
          value={draft.theme}
          onChange={(e) => {
            const theme = appSettingsSchema.shape.theme.safeParse(e.target.value)
            if (theme.success) changeTheme(theme.data)
          }}
        >
          <option value="system">System</option>
          <option value="dark">Dark</option>
          <option value="light">Light</option>
        </select>
      </div>

      <div className="ui-actions">
        <button type="button" className="ui-button" onClick={closeSettings}>
          Cancel
        </button>
        <button type="submit" className="ui-button primary" data-testid="settings-save" disabled={saving}>
          Save
        </button>
      </div>
    </form>
  )
}

interface PolicyFieldsetProps {
  name: string
  value: ApprovalPolicy
  sessionOpen: boolean
  onChange(policy: ApprovalPolicy): void
}

function PolicyFieldset({ name, value, sessionOpen, onChange }: PolicyFieldsetProps): React.JSX.Element {
  return (
    <fieldset className="settings-fieldset">
      <legend>Approval policy</legend>
      {POLICIES.map((p) => (
        <label key={p} className="settings-radio">
          <input
            type="radio"
            name={name}
            value={p}
            checked={value === p}
            data-autofocus={value === p ? true : undefined}
            onChange={() => onChange(p)}
          />
          <span>
            <span className="settings-radio-label">{POLICY_INFO[p].label}</span>
            <span className="settings-radio-note">{POLICY_INFO[p].explanation}</span>
          </span>
        </label>
      ))}
      <p className="ui-note">
        {sessionOpen ? 'Also applies to the open chat at once.' : 'The default for new chats.'}
      </p>
    </fieldset>
  )
}

interface DraftFieldProps {
  spec: FieldSpec
  id: string
  value: string
  error: string | undefined
  onChange(value: string): void
}

/** One row of the field table: its label, its box and the message when what it holds is not valid. */
function DraftField({ spec, id, value, error, onChange }: DraftFieldProps): React.JSX.Element {
  const errorId = `${id}-error`
  const aria = { 'aria-invalid': error !== undefined, 'aria-describedby': error ? errorId : undefined }
  return (
    <div>
      <label className="ui-label" htmlFor={id}>
        {spec.label}
      </label>
      {spec.kind === 'lines' ? (
        <textarea
          id={id}
          className="ui-textarea"
          rows={4}
          spellCheck={false}
          placeholder={spec.placeholder}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          {...aria}
        />
      ) : (
        <input
          id={id}
          className="ui-input"
          inputMode={spec.inputMode ?? 'numeric'}
          placeholder={spec.placeholder}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          {...aria}
        />
      )}
      {error && (
        <p id={errorId} className="settings-error">
          {error}
        </p>
      )}
    </div>
  )
}
