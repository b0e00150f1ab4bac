import type React from 'react'
import { useId, useState, type FormEvent, type ReactNode } from 'react'
import type { AppSettings } from '../../../shared/protocol'
import { NotificationSettings } from '../attention/NotificationSettings'
import { McpRoot } from '../mcp/McpDialog'
import { ApprovalRules } from './ApprovalRules'
import { McpSettingsRow } from '../mcp/McpSettingsRow'
import { Dialog } from '../palette/Dialog'
import { saveSettings, toast, useApp } from '../state/store'
import { fromDraft, MODEL_OPTIONS_NOTE, toDraft, type DraftErrors, type SettingsDraft } from './form'
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

function SettingsForm({ settings }: { settings: AppSettings }): React.JSX.Element {
  const ids = useId()
  const [draft, setDraft] = useState<SettingsDraft>(() => toDraft(settings))
  const [errors, setErrors] = useState<DraftErrors>({})
  const [saving, setSaving] = useState(false)
  const sessionId = useApp((s) => s.sessionId)
  const set = <K extends keyof SettingsDraft>(key: K, value: SettingsDraft[K]): void =>
    setDraft((d) => ({ ...d, [key]: value }))

  const changeTheme = (theme: AppSettings['theme']): void => {
    set('theme', theme)
    applyTheme(theme)
    saveSettings({ theme }).catch(() => undefined) // toasted; the look still changed for now
  }

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

  const field = (
    key: keyof SettingsDraft,
  ): { id: string; 'aria-invalid': boolean; 'aria-describedby'?: string } => ({
    id: `${ids}-${key}`,
    'aria-invalid': errors[key] !== undefined,
    'aria-describedby': errors[key] ? `${ids}-${key}-error` : undefined,
  })
  const error = (key: keyof SettingsDraft): ReactNode =>
    errors[key] && (
      <p id={`${ids}-${key}-error`} className="settings-error">
        {errors[key]}
      </p>
    )

  return (
    <form className="settings-form" onSubmit={(e) => void submit(e)} noValidate>
      <fieldset className="settings-fieldset">
        <legend>Approval policy</legend>
        {POLICIES.map((p) => (
          <label key={p} className="settings-radio">
            <input
              type="radio"
              name={`${ids}-policy`}
              value={p}
              checked={draft.approvalPolicy === p}
              data-autofocus={draft.approvalPolicy === p ? true : undefined}
              onChange={() => set('approvalPolicy', p)}
            />
            <span>
              <span className="settings-radio-label">{POLICY_INFO[p].label}</span>
              <span className="settings-radio-note">{POLICY_INFO[p].explanation}</span>
            </span>
          </label>
        ))}
        <p className="ui-note">
          {sessionId ? 'Also applies to the open chat at once.' : 'The default for new chats.'}
        </p>
      </fieldset>

      <fieldset className="settings-fieldset settings-columns">
        <legend>Commands</legend>
        <div>
          <label className="ui-label" htmlFor={`${ids}-allow`}>
            Always allow (one a line)
          </label>
          <textarea
            className="ui-textarea"
            rows={4}
            spellCheck={false}
            placeholder="npm test"
            value={draft.allow}
            onChange={(e) => set('allow', e.target.value)}
            {...field('allow')}
          />
          {error('allow')}
        </div>
        <div>
          <label className="ui-label" htmlFor={`${ids}-deny`}>
            Never run (one a line)
          </label>
          <textarea
            className="ui-textarea"
            rows={4}
            spellCheck={false}
            placeholder="git push"
            value={draft.deny}
            onChange={(e) => set('deny', e.target.value)}
            {...field('deny')}
          />
          {error('deny')}
        </div>
      </fieldset>

      <fieldset className="settings-fieldset settings-columns">
        <legend>Limits</legend>
        <NumberField
          label="Max file read (KB)"
          value={draft.maxReadKb}
          onChange={(v) => set('maxReadKb', v)}
          {...field('maxReadKb')}
        >
          {error('maxReadKb')}
        </NumberField>
        <NumberField
          label="Max file write (KB)"
          value={draft.maxWriteKb}
          onChange={(v) => set('maxWriteKb', v)}
          {...field('maxWriteKb')}
        >
          {error('maxWriteKb')}
        </NumberField>
        <NumberField
          label="Max steps a turn"
          value={draft.maxSteps}
          onChange={(v) => set('maxSteps', v)}
          {...field('maxSteps')}
        >
          {error('maxSteps')}
        </NumberField>
        <NumberField
          label="Max tool calls a turn"
          value={draft.maxToolCalls}
          onChange={(v) => set('maxToolCalls', v)}
          {...field('maxToolCalls')}
        >
          {error('maxToolCalls')}
        </NumberField>
      </fieldset>

      <fieldset className="settings-fieldset settings-columns three" data-testid="settings-model-options">
        <legend>Model window and sampling</legend>
        <NumberField
          label="Context window (tokens)"
          placeholder="auto"
          value={draft.numCtx}
          onChange={(v) => set('numCtx', v)}
          {...field('numCtx')}
        >
          {error('numCtx')}
        </NumberField>
        <NumberField
          label="Largest automatic window"
          placeholder="32768"
          value={draft.maxNumCtx}
          onChange={(v) => set('maxNumCtx', v)}
          {...field('maxNumCtx')}
        >
          {error('maxNumCtx')}
        </NumberField>
        <NumberField
          label="Temperature"
          placeholder="server default"
          inputMode="decimal"
          value={draft.temperature}
          onChange={(v) => set('temperature', v)}
          {...field('temperature')}
        >
          {error('temperature')}
        </NumberField>
        <p className="ui-note settings-span">{MODEL_OPTIONS_NOTE}</p>
      </fieldset>

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
          onChange={(e) => changeTheme(e.target.value as AppSettings['theme'])}
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

interface NumberFieldProps {
  id: string
  label: string
  value: string
  placeholder?: string
  inputMode?: 'numeric' | 'decimal'
  onChange(value: string): void
  'aria-invalid': boolean
  'aria-describedby'?: string
  children?: ReactNode
}

function NumberField({
  id,
  label,
  value,
  onChange,
  children,
  placeholder,
  inputMode = 'numeric',
  ...aria
}: NumberFieldProps): React.JSX.Element {
  return (
    <div>
      <label className="ui-label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        className="ui-input"
        inputMode={inputMode}
        placeholder={placeholder}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        {...aria}
      />
      {children}
    </div>
  )
}
