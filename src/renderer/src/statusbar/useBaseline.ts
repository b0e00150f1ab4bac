import { useEffect, useState } from 'react'
import { useEffectiveChoice } from '../models/choice'
import { getApi, useApp } from '../state/store'
import type { Baseline } from './derive'

/**
 * What the first request takes in the open project, on the model in use (`context/baseline`),
 * asked again when the project, the model or the window settings change. Quiet on failure: the
 * meter then waits for the first answer.
 */
export function useBaseline(): Baseline | null {
  const repo = useApp((s) => s.project?.repo)
  const options = useApp((s) => JSON.stringify(s.settings?.modelOptions ?? {}))
  const choice = useEffectiveChoice()
  const [result, setResult] = useState<{ key: string; baseline: Baseline } | null>(null)
  const key =
    repo && choice ? [repo, choice.provider, choice.model, choice.baseUrl ?? '', options].join('\n') : null

  useEffect(() => {
    if (!key || !repo || !choice) return
    let live = true
    getApi()
      .invoke('context/baseline', {
        repo,
        provider: choice.provider,
        model: choice.model,
        ...(choice.baseUrl ? { baseUrl: choice.baseUrl } : {}),
      })
      .then(
        (baseline) => live && setResult({ key, baseline }),
        () => undefined,
      )
    return () => {
      live = false
    }
    // `key` carries everything the answer depends on.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key])

  return result && result.key === key ? result.baseline : null
}
