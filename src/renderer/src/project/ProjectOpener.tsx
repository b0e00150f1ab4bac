import type React from 'react'
import { useId, useState } from 'react'
import { invoke, openProject, useApp } from '../state/store'
import { PathField } from './PathField'
import { baseName, parentOf } from './paths'
import './project.css'

interface ProjectOpenerProps {
  /** Called once a project opened (e.g. to close the dialog around it). */
  onOpened?(): void
  /** Shows the heading and intro, for the empty window; off inside a dialog. */
  standalone?: boolean
}

/**
 * Open a project: a path with folder completion, Browse… (desktop), and the recent projects.
 * Shown when no project is open, and in the "Open folder…" dialog.
 */
export function ProjectOpener({ onOpened, standalone = true }: ProjectOpenerProps): React.JSX.Element {
  const id = useId()
  const info = useApp((s) => s.info)
  const [path, setPath] = useState('')
  const [busy, setBusy] = useState(false)

  const open = async (repo: string): Promise<void> => {
    const target = repo.trim()
    if (!target || busy) return
    setBusy(true)
    try {
      await openProject(target)
      onOpened?.()
    } catch {
      // Toasted by invoke; the path stays to fix.
    } finally {
      setBusy(false)
    }
  }

  const browse = async (): Promise<void> => {
    try {
      const { path: picked } = await invoke('fs/pick-folder', {})
      if (picked) await open(picked)
    } catch {
      // Toasted by invoke.
    }
  }

  const recent = info?.recentProjects ?? []
  return (
    <section className={`project-opener ${standalone ? 'standalone' : ''}`} aria-label="Open a project">
      {standalone && (
        <header>
          <h1 className="project-opener-title">Open a project</h1>
          <p className="ui-note">
            Stepwise works in one folder at a time; every change it makes there is checkpointed.
          </p>
        </header>
      )}
      <form
        className="project-opener-form"
        onSubmit={(e) => {
          e.preventDefault()
          void open(path)
        }}
      >
        <label className="ui-label" htmlFor={id}>
          Folder
        </label>
        <div className="ui-row">
          <PathField id={id} value={path} onChange={setPath} onSubmit={() => void open(path)} autoFocus />
          <button
            type="submit"
            className="ui-button primary"
            data-testid="open-project"
            disabled={!path.trim() || busy}
          >
            Open
          </button>
          {info?.canPickFolder && (
            <button type="button" className="ui-button" onClick={() => void browse()} disabled={busy}>
              Browse…
            </button>
          )}
        </div>
        <p className="ui-note">Type a path (~ for your home folder); Tab completes.</p>
      </form>
      {recent.length > 0 && <RecentProjects recent={recent} busy={busy} onOpen={(repo) => void open(repo)} />}
    </section>
  )
}

/** The projects opened last, newest first: one click opens one. */
function RecentProjects({
  recent,
  busy,
  onOpen,
}: {
  recent: readonly string[]
  busy: boolean
  onOpen(repo: string): void
}): React.JSX.Element {
  return (
    <nav className="project-recent" aria-label="Recent projects">
      <h2 className="ui-label">Recent</h2>
      <ul>
        {recent.map((repo) => (
          <li key={repo}>
            <button
              type="button"
              className="project-recent-item"
              data-testid="recent-project"
              title={repo}
              disabled={busy}
              onClick={() => onOpen(repo)}
            >
              <span className="project-recent-name">{baseName(repo)}</span>
              <span className="project-recent-path">{parentOf(repo)}</span>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  )
}
