import { useEffect, useState } from 'react'
import type React from 'react'
import { useAttention } from './attention/useAttention'
import { MainPane } from './layout/MainPane'
import { SidePanel } from './layout/SidePanel'
import { Toasts } from './layout/Toasts'
import { ModelPicker } from './models/ModelPicker'
import { Onboarding } from './models/Onboarding'
import { CommandPalette } from './palette/CommandPalette'
import { openPalette } from './palette/paletteState'
import { OpenFolderButton } from './project/OpenFolderButton'
import { DialogHost } from './panels/DialogHost'
import { ProjectOpener } from './project/ProjectOpener'
import { ReplayBar } from './replay/ReplayBar'
import { useReplayActive } from './replay/useReplay'
import { SessionList } from './sessions/SessionList'
import { ApprovalPolicySwitch } from './settings/ApprovalPolicySwitch'
import { SettingsRoot } from './settings/SettingsDialog'
import { StatusBar } from './statusbar/StatusBar'
import { connect, useApp } from './state/store'
import { hostApi } from './transport'
import './layout/layout.css'
import { errorMessage } from '../../shared/errors'

/**
 * The app's frame. It re-renders only when the project or the replay mode
 * changes: each part subscribes to the state it shows, so a burst of live events
 * re-renders the timeline and the status bar, not the whole window.
 *
 * The app: sessions on the left; the timeline and the chat in the middle; the
 * waiting approval, a step's details or the replayed files on the right; the
 * status bar below; the dialogs over it. Ctrl+K opens the command palette. What shows on the right
 * and which dialogs exist is the features' to say (panels/registry.ts, panels/features.ts).
 */
export function App(): React.JSX.Element {
  const [failed, setFailed] = useState<string | null>(null)
  const ready = useApp((s) => s.info !== null)
  const project = useApp((s) => s.project)
  const replaying = useReplayActive()
  useAttention()

  useEffect(() => {
    connect(hostApi()).catch((err: unknown) => setFailed(errorMessage(err)))
  }, [])

  if (failed) {
    return (
      <div className="app-message" role="alert" data-testid="app-root">
        <h1>Stepwise cannot reach its host</h1>
        <p>{failed}</p>
        <p>Start it again (`npm start`, or `stepwise serve`), then reload this page.</p>
      </div>
    )
  }
  if (!ready) {
    return (
      <div className="app-message" data-testid="app-root" aria-busy="true">
        Connecting…
      </div>
    )
  }
  return (
    <div className="app" data-testid="app-root">
      <header className="app-header">
        <span className="brand" aria-hidden="true">
          <span />
          <span />
          <span />
        </span>
        <h1 className="project-name" title={project?.repo}>
          {project ? project.name : 'Stepwise'}
        </h1>
        <OpenFolderButton className="ui-button small" />
        <span className="spacer" />
        <ReplayBar />
        {!replaying && (
          <>
            <ApprovalPolicySwitch />
            <ModelPicker />
          </>
        )}
        <button
          type="button"
          className="ui-button small"
          onClick={openPalette}
          aria-label="Commands (Ctrl+K), ⌘K"
        >
          ⌘K
        </button>
      </header>
      {project ? (
        <div className="app-body">
          <SessionList />
          <div className="center">
            {!replaying && <Onboarding />}
            <MainPane />
          </div>
          <SidePanel />
        </div>
      ) : (
        <div className="app-body no-project">
          <ProjectOpener />
        </div>
      )}
      <StatusBar />
      <CommandPalette />
      <SettingsRoot />
      <DialogHost />
      <Toasts />
    </div>
  )
}
