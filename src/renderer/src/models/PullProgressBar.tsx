import type React from 'react'
import { pullPercent, pullText } from './format'
import { usePullProgress } from './pull'

/** The progress of pulling `model`, fed by `host.pull-progress` notices; nothing before a pull. */
export function PullProgressBar({ model }: { model: string }): React.JSX.Element | null {
  const progress = usePullProgress(model)
  if (!progress) return null
  const percent = pullPercent(progress)
  const text = pullText(progress)
  return (
    <div className={`ui-progress ${progress.error ? 'error' : ''}`}>
      <div
        className="ui-progress-track"
        role="progressbar"
        data-testid="pull-progress"
        aria-label={`Pulling ${model}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent ?? undefined}
        aria-valuetext={percent === null ? text : `${percent}% · ${text}`}
      >
        <div
          className={`ui-progress-fill ${percent === null && !progress.done ? 'indeterminate' : ''}`}
          style={progress.error ? { width: '100%' } : percent === null ? undefined : { width: `${percent}%` }}
        />
      </div>
      <div className="ui-row">
        <span>{text}</span>
        {percent !== null && !progress.error && <span className="ui-progress-percent">{percent}%</span>}
      </div>
    </div>
  )
}
