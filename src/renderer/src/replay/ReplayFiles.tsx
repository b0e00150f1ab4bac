import { useEffect, useState } from 'react'
import type React from 'react'
import { ReadOnlyDiff } from './ReadOnlyDiff'
import { invoke, openSession, toast, useApp } from '../state/store'
import { changedPaths } from './paths'
import { rewindFiles } from './rewind'

interface StepFiles {
  files: string[]
  changed: string[]
}

/**
 * The project as of the replayed step: its files, what the step changed, any file
 * in Monaco against the step before, and the way out — rewind the files to here
 * or fork a new session from here.
 */
export default function ReplayFiles({ seq }: { seq: number }): React.JSX.Element {
  const sessionId = useApp((s) => s.sessionId)!
  const [files, setFiles] = useState<StepFiles | null>(null)
  const [path, setPath] = useState<string | null>(null)
  const [loaded, setLoaded] = useState<{
    key: string
    before: string
    after: string
    binary: boolean
  } | null>(null)
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

  const fork = async (): Promise<void> => {
    const ok = window.confirm(
      `Fork a new session from step ${seq}? The project's files are put back as they were at that step (the present is saved first, so an undo brings it back).`,
    )
    if (!ok) return
    const { sessionId: child } = await invoke('session/fork', { sessionId, atSeq: seq })
    toast('info', `Forked from step ${seq}. Continue the chat in the new session.`)
    await openSession(child)
  }

  return (
    <section className="replay-files" aria-label={`Files at step ${seq}`} data-testid="replay-files">
      <header>
        <h2>Files at step {seq}</h2>
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
            onClick={() => void fork().catch(() => undefined)}
          >
            Fork from here
          </button>
        </div>
      </header>
      {files && files.files.length === 0 && <p className="note">No snapshot of the files at this step.</p>}
      {files && files.files.length > 0 && (
        <ul aria-label="Files">
          {[...files.changed, ...files.files.filter((f) => !files.changed.includes(f))].map((f) => (
            <li key={f}>
              <button type="button" aria-current={f === path ? 'true' : undefined} onClick={() => setPath(f)}>
                <span className={files.changed.includes(f) ? 'changed' : undefined}>
                  {files.changed.includes(f) ? '● ' : ''}
                  {f}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
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
