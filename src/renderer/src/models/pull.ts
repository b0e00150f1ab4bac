import { invoke, toast, useApp, type PullProgress } from '../state/store'
import { loadModels, requestRecheck } from './catalog'
import { errorMessage } from '../../../shared/errors'

/**
 * Pulling an Ollama model. Progress arrives as `host.pull-progress` notices into
 * `useApp().pulls[model]`; when one ends well the Ollama list is loaded again and the onboarding
 * check re-runs.
 */

const baseUrls = new Map<string, string | undefined>()
let watching = false

function watchPulls(): void {
  if (watching) return
  watching = true
  useApp.subscribe((s, prev) => {
    if (s.pulls === prev.pulls) return
    for (const [model, p] of Object.entries(s.pulls)) {
      if (p === prev.pulls[model] || !p.done || p.error) continue
      void loadModels('ollama', baseUrls.get(model), true)
      requestRecheck()
      toast('info', `Pulled ${model}.`)
    }
  })
}

/** Starts a pull; resolves once Ollama accepted it (progress follows). Rejects after a toast. */
export async function startPull(model: string, baseUrl?: string): Promise<void> {
  const name = model.trim()
  if (!name) return
  watchPulls()
  baseUrls.set(name, baseUrl)
  const pending: PullProgress = { type: 'host.pull-progress', model: name, status: 'starting', done: false }
  const before = useApp.getState().pulls[name]
  // Show the bar at once; an old finished pull of the same name would otherwise still show.
  if (!before || before.done) useApp.setState((s) => ({ pulls: { ...s.pulls, [name]: pending } }))
  try {
    const { started } = await invoke('models/pull', { model: name, ...(baseUrl ? { baseUrl } : {}) })
    if (!started) toast('info', `${name} is already being pulled.`)
  } catch (err) {
    useApp.setState((s) => ({
      pulls: {
        ...s.pulls,
        [name]: {
          ...pending,
          status: 'error',
          done: true,
          error: errorMessage(err),
        },
      },
    }))
    throw err
  }
}

export function usePullProgress(model: string | null | undefined): PullProgress | undefined {
  return useApp((s) => (model ? s.pulls[model] : undefined))
}
