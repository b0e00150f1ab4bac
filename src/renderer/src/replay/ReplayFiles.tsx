import { useEffect, useState } from 'react'
import type React from 'react'
import { ReadOnlyDiff } from './ReadOnlyDiff'
import { invoke, useApp } from '../state/store'
import { ForkDialog } from './ForkDialog'
import { changedPaths } from './paths'
import { rewindFiles } from './rewind'
import { useReplayPosition } from './useReplay'

interface StepFiles {
  files: string[]
  changed: string[]
}

interface LoadedFile {
  /** The step and path it was loaded for. */
  key: string
  before: string
  after: string
  binary: boolean
}

/** One file as of step `seq`, and as of the step before; the last one loaded until the next arrives. */
function useFileAt(sessionId: string, seq: number, path: string | null): LoadedFile | null {
  const [loaded, setLoaded] = useState<LoadedFile | null>(null)
  useEffect(() => {
    if (!path) return
    let live = true
    invoke('session/file-at', { sessionId, seq, path }).then(
      (r) =>
        live &&
        setLoaded({
          key: `${seq}\0${path}`,
          before: r.before ?? '',
          after: r.content ?? '',
          binary: r.binary,
        }),
      () => undefined,
    )
    return () => {
      live = false
    }
  }, [sessionId, seq, path])
  return loaded
}

/** The files of the step, the ones it changed first (marked ●). */
function FileList({
  files,
  path,
  onPick,
}: {
  files: StepFiles
  path: string | null
  onPick(path: string): void
}): React.JSX.Element {
  return (
    <ul aria-label="Files">
      {[...files.changed, ...files.files.filter((f) => !files.changed.includes(f))].map((f) => (
        <li key={f}>
          <button type="button" aria-current={f === path ? 'true' : undefined} onClick={() => onPick(f)}>
            <span className={files.changed.includes(f) ? 'changed' : undefined}>
              {files.changed.includes(f) ? '● ' : ''}
              {f}
            </span>
          </button>
        </li>
      ))}
    </ul>
  )
}

/**
 * The project as of the replayed step: its files, what the step changed, any file
 * in Monaco against the step before, and the way out — rewind the files to here
 * or fork a new session from here.
 */
export default function ReplayFiles({ seq }: { seq: number }): React.JSX.Element {
  const sessionId = useApp((s) => s.sessionId)!
  const { step } = useReplayPosition()
  const [forking, setForking] = useState(false)
  const [files, setFiles] = useState<StepFiles | null>(null)
  const [path, setPath] = useState<string | null>(null)
  const loaded = useFileAt(sessionId, seq, path)
  const key = `${seq}\0${path}`
  // The last file loaded stays in view while the next one loads (the editor is kept, not remounted).
  const content = path ? loaded : null
  const current = loaded?.key === key

  useEffect(() => {
    let live = true
    invoke('session/files-at', { sessionId, seq }).then(
      (r) => {
        if (!live) return
        const changed = changedPaths(r.diff)
        setFiles({ files: r.files, changed })
        // What the step changed first; else keep the file in view, or show the first one.
        setPath((p) => changed[0] ?? (p && r.files.includes(p) ? p : (r.files[0] ?? null)))
      },
      () => undefined,
    )
    return () => {
      live = false
    }
  }, [sessionId, seq])

  return (
    <section className="replay-files" aria-label={`Files at step ${step}`} data-testid="replay-files">
      <header>
        <h2>{step === 0 ? 'Files at the start' : `Files at step ${step}`}</h2>
        <div className="actions">
          <button
            type="button"
            className="ui-button small"
            data-testid="rewind-here"
            onClick={() => void rewindFiles(sessionId, seq)}
          >
            Rewind files here
          </button>
          <button
            type="button"
            className="ui-button small"
            data-testid="fork-here"
            onClick={() => setForking(true)}
          >
            Fork from here…
          </button>
        </div>
        {forking && (
          <ForkDialog sessionId={sessionId} seq={seq} step={step} onClose={() => setForking(false)} />
        )}
      </header>
      {files && files.files.length === 0 && <p className="note">No snapshot of the files at this step.</p>}
      {files && files.files.length > 0 && <FileList files={files} path={path} onPick={setPath} />}
      {content?.binary && <p className="note">{path} is a binary file.</p>}
      {content && !content.binary && path && files && (
        <p className="diff-caption" data-testid="replay-diff-caption">
          {files.changed.includes(path)
            ? `${path} · changed at this step, shown against the step before`
            : `${path} · not changed at this step, as it was then`}
        </p>
      )}
      {content && !content.binary && path && (
        <div className="editor" data-testid="replay-diff" aria-busy={!current}>
          <ReadOnlyDiff path={path} before={content.before} after={content.after} />
        </div>
      )}
    </section>
  )
}
