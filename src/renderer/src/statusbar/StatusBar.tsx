import type React from 'react'
import { useSetupBlocker } from '../models/allModels'
import { useEffectiveChoice } from '../models/choice'
import { choiceLabel } from '../models/format'
import { openModelPicker } from '../models/pickerState'
import { useApp } from '../state/store'
import { formatTokens } from '../timeline/format'
import { ContextMeter } from './ContextMeter'
import { sessionState } from './derive'
import { IndexProgress } from './IndexProgress'
import { formatCost } from './prices'
import { SessionClock } from './SessionClock'
import { useSessionCost } from './useCost'
import './statusbar.css'

/**
 * The bar at the bottom: project and branch, model, what the agent is doing, the context meter,
 * tokens, cost (when prices are known), session time, and a warning when there is no sandbox.
 * Only the state is announced; the meters and the clock change too often to read out.
 */
export function StatusBar(): React.JSX.Element {
  const project = useApp((s) => s.project)
  const info = useApp((s) => s.info)
  const sessionId = useApp((s) => s.sessionId)
  const starting = useApp((s) => s.starting)
  const view = useApp((s) => s.view)
  const choice = useEffectiveChoice()
  const cost = useSessionCost()
  const blocker = useSetupBlocker(choice)
  const idle = sessionState(view, sessionId !== null, starting)
  // Never "ready" while the model cannot answer (Ollama down, no key): the setup card says why.
  const state =
    blocker && (idle.key === 'none' || idle.key === 'ready')
      ? { key: 'error' as const, label: 'model not ready', detail: blocker }
      : idle
  const { inputTokens, outputTokens } = view.usage

  return (
    <footer className="statusbar" role="status" aria-label="Status" data-testid="status-bar">
      <div className="statusbar-group">
        <ProjectItem />
        <button
          type="button"
          className="statusbar-item statusbar-button"
          title="Switch model"
          onClick={() => openModelPicker()}
        >
          {choiceLabel(choice?.provider, choice?.model)}
        </button>
        <span
          className={`statusbar-item statusbar-state ${state.key}`}
          data-testid="session-state"
          data-state={state.key}
          title={state.detail}
        >
          <span className="statusbar-dot" aria-hidden="true" />
          {state.label}
        </span>
      </div>
      <div className="statusbar-group" aria-live="off">
        <IndexProgress />
        {project && <ContextMeter />}
        {sessionId && (
          <span
            className="statusbar-item"
            data-testid="token-usage"
            aria-label={`Tokens: ${inputTokens.toLocaleString('en-US')} in, ${outputTokens.toLocaleString('en-US')} out`}
            title="Tokens sent to and received from the model"
          >
            {formatTokens(inputTokens)} in · {formatTokens(outputTokens)} out
          </span>
        )}
        {sessionId && cost && (
          <span
            className="statusbar-item"
            data-testid="session-cost"
            title={cost.complete ? 'Cost at list prices' : 'Some steps used a model without a known price'}
          >
            {formatCost(cost)}
          </span>
        )}
        {sessionId && <SessionClock />}
        {info && !info.sandbox.available && (
          <span
            className="statusbar-item statusbar-chip warn"
            data-testid="sandbox-warning"
            title={[info.sandbox.summary, info.sandbox.reason].filter(Boolean).join('. ')}
            aria-label={`No sandbox${info.sandbox.reason ? `: ${info.sandbox.reason}` : ''}`}
          >
            No sandbox
          </span>
        )}
      </div>
    </footer>
  )
}

/** The project: its name, its branch, and its warning when it has one. */
function ProjectItem(): React.JSX.Element {
  const project = useApp((s) => s.project)
  if (!project) return <span className="statusbar-item statusbar-muted">No project</span>
  return (
    <span className="statusbar-item" title={project.repo}>
      <span className="statusbar-project">{project.name}</span>
      {project.branch && (
        <span className="statusbar-branch" aria-label={`branch ${project.branch}`}>
          <span aria-hidden="true">⎇</span> {project.branch}
        </span>
      )}
      {project.warning && (
        <span
          className="statusbar-warning"
          role="alert"
          title={project.warning}
          data-testid="project-warning"
        >
          ⚠ {project.warning}
        </span>
      )}
    </span>
  )
}
