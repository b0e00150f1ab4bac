import type React from 'react'
import { useEffect } from 'react'
import { closeSettings } from '../settings/settingsUi'
import { summaryLine } from './model'
import { openMcp, refreshMcp, useMcpUi } from './mcpState'

/** The settings dialog's way to the MCP servers: what stands, and a button to the full view. */
export function McpSettingsRow(): React.JSX.Element {
  const list = useMcpUi((s) => s.list)
  useEffect(() => void refreshMcp(true), [])
  return (
    <fieldset className="settings-fieldset">
      <legend>MCP servers</legend>
      <div className="mcp-settings-row">
        <span className="ui-note" data-testid="settings-mcp-summary">
          {summaryLine(list)}
        </span>
        <button
          type="button"
          className="ui-button small"
          data-testid="settings-open-mcp"
          onClick={() => {
            closeSettings()
            openMcp()
          }}
        >
          Manage MCP servers…
        </button>
      </div>
    </fieldset>
  )
}
