import { useEffect, useMemo, useState } from 'react'
import type React from 'react'
import { ChatInput } from '../chat/ChatInput'
import { StarterPrompts } from '../chat/StarterPrompts'
import { AgentFilesNotice } from './AgentFilesNotice'
import { ErrorActions } from './ErrorActions'
import { invoke, loadSession, select, useApp } from '../state/store'
import {
  countByCategory,
  filterSteps,
  NO_FILTER,
  Timeline,
  TimelineFilters,
  type TimelineFilter,
} from '../timeline'
import { useDisplayedView, useReplayActive } from '../replay/useReplay'

/** The session's timeline (live, or as of the scrubbed step in replay) with its filters and the chat box. */
export function MainPane(): React.JSX.Element {
  const view = useDisplayedView()
  const replaying = useReplayActive()
  const selectedSeq = useApp((s) => s.selectedSeq)
  const [filter, setFilter] = useState<TimelineFilter>(NO_FILTER)
  const steps = useMemo(() => filterSteps(view.steps, filter), [view.steps, filter])
  const counts = useMemo(() => countByCategory(view.steps), [view.steps])
  return (
    <main className="main-pane" aria-label="Session">
      <TimelineFilters filter={filter} onChange={setFilter} counts={counts} />
      {view.parent && <ForkOrigin parent={view.parent} />}
      <AgentFilesNotice view={view} />
      {view.steps.length === 0 ? (
        <div className="empty-session">
          <h2>What should the agent do?</h2>
          <p>
            Every step shows up here as it happens. Changes wait for you as diffs: accept them whole, per
            hunk, or after editing.
          </p>
          {!replaying && <StarterPrompts />}
        </div>
      ) : (
        <Timeline steps={steps} selectedSeq={selectedSeq} onSelect={select} follow={!replaying} />
      )}
      {!replaying && <ErrorActions />}
      {!replaying && <ChatInput />}
    </main>
  )
}

/** In a fork: where it came from, one click away (the parent's timeline shows the fork too). */
function ForkOrigin({
  parent,
}: {
  parent: { sessionId: string; seq: number; step?: number }
}): React.JSX.Element {
  const listed = useApp((s) => s.sessions.find((x) => x.id === parent.sessionId)?.title)
  // A fork in its own worktree lists that folder's sessions: the parent is looked up in all of them.
  const [found, setFound] = useState<string | undefined>()
  useEffect(() => {
    if (listed !== undefined) return
    let live = true
    invoke('session/list', {}).then(
      ({ sessions }) => live && setFound(sessions.find((x) => x.id === parent.sessionId)?.title),
      () => undefined,
    )
    return () => {
      live = false
    }
  }, [listed, parent.sessionId])
  const title = listed ?? found
  return (
    <p className="fork-origin" data-testid="fork-origin">
      <span aria-hidden="true">↳ </span>
      Forked from{' '}
      <button type="button" className="link" onClick={() => void loadSession(parent.sessionId)}>
        {title ?? parent.sessionId}
      </button>{' '}
      {/* A fork made before steps were numbered knows only the parent's event seq. */}
      {parent.step === undefined ? `at event ${parent.seq}` : `at step ${parent.step}`}
    </p>
  )
}
