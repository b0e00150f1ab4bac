import { useEffect, useState } from 'react'
import type React from 'react'
import { MainPane } from './layout/MainPane'
import { SidePanel } from './layout/SidePanel'
import { Toasts } from './layout/Toasts'
import { ReplayBar } from './replay/ReplayBar'
import { useReplay } from './replay/useReplay'
import { SessionList } from './sessions/SessionList'
import { connect, useApp } from './state/store'
import { hostApi } from './transport'
import './layout/layout.css'

/** The app: sessions on the left, the timeline and chat in the middle, approvals and details on the right. */
export function App(): React.JSX.Element {
  const [failed, setFailed] = useState<string | null>(null)
  const ready = useApp((s) => s.info !== null)
  const project = useApp((s) => s.project)
  const live = useApp((s) => s.view)
  const replay = useReplay()
  const view = replay.active ? replay.view : live

  useEffect(() => {
    connect(hostApi()).catch((err: unknown) => setFailed(err instanceof Error ? err.message : String(err)))
  }, [])

  if (failed) {
    return (
      <div className="app-message" role="alert" data-testid="app-root">
        <h1>Stepwise cannot reach its host</h1>
        <p>{failed}</p>
        <p>Start it again with `npm start` or `stepwise serve`, then reload this page.</p>
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
        <span className="project-name">{project ? project.name : 'Stepwise'}</span>
        <span className="spacer" />
        <ReplayBar controls={replay} />
      </header>
      <div className="app-body">
        <SessionList />
        <MainPane view={view} replaying={replay.active} />
        <SidePanel view={view} replayingAt={replay.active ? replay.seq : undefined} />
      </div>
      <Toasts />
    </div>
  )
}
