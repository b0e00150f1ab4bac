import type { CommandInput, CommandOutput, ModelInfo, ProviderId } from '../../shared/protocol'
import { lookupModel } from '../context/windows'
import { joinUrl, requestJson } from '../providers/http'
import { errorMessage } from '../../shared/errors'
import { parseJsonObject, recordOf } from '../../shared/records'
import { NdjsonParser } from '../providers/ndjson'
import type { ServiceContext } from './context'
import { effectiveBaseUrl } from './provider-settings'
import { ServiceError } from './sessions'
import { providerDescriptor } from '../../shared/providers'

/**
 * The model picker's side of the core: which models a server has and pulling an Ollama model
 * with progress. Every provider's list at once and the setup check are in model-catalog.ts.
 */

const TIMEOUT_MS = 5000

async function ollamaModels(base: string): Promise<ModelInfo[]> {
  const body = recordOf(
    await requestJson({
      url: joinUrl(base, '/api/tags'),
      method: 'GET',
      provider: 'ollama',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    }),
  )
  const models: unknown[] = Array.isArray(body.models) ? body.models : []
  return models.flatMap((raw) => {
    const m = recordOf(raw)
    const name = typeof m.name === 'string' && m.name ? m.name : typeof m.model === 'string' ? m.model : ''
    if (!name) return []
    const details = recordOf(m.details)
    return [
      {
        name,
        size: typeof m.size === 'number' ? m.size : undefined,
        parameters: typeof details.parameter_size === 'string' ? details.parameter_size : undefined,
        family: typeof details.family === 'string' ? details.family : undefined,
      },
    ]
  })
}

async function openaiModels(ctx: ServiceContext, provider: ProviderId, base: string): Promise<ModelInfo[]> {
  const body = recordOf(
    await requestJson({
      url: joinUrl(base, '/models'),
      method: 'GET',
      provider,
      apiKey: ctx.keys.get(provider),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    }),
  )
  const data: unknown[] = Array.isArray(body.data) ? body.data : []
  return data
    .flatMap((m) => {
      const id = recordOf(m).id
      return typeof id === 'string' && id ? [id] : []
    })
    .sort()
    .map((name) => ({ name, ...lookupModel(name) }))
}

/** One server's models; `base` is the whole address (effectiveBaseUrl). */
export async function listServer(
  ctx: ServiceContext,
  provider: ProviderId,
  base: string,
): Promise<CommandOutput<'models/list'>> {
  if (!base) return { reachable: false, error: 'no server address is set', models: [] }
  try {
    const wire = providerDescriptor(provider).wire
    const models = wire === 'ollama' ? await ollamaModels(base) : await openaiModels(ctx, provider, base)
    return { reachable: true, models }
  } catch (err) {
    return { reachable: false, error: errorMessage(err), models: [] }
  }
}

export function listModels(
  ctx: ServiceContext,
  input: CommandInput<'models/list'>,
): Promise<CommandOutput<'models/list'>> {
  return listServer(ctx, input.provider, effectiveBaseUrl(ctx, input.provider, input.baseUrl))
}

const pulling = new Set<string>()

/** Starts `ollama pull`; progress goes out as `host.pull-progress`, the last one with `done`. */
export function pullModel(
  ctx: ServiceContext,
  input: CommandInput<'models/pull'>,
): CommandOutput<'models/pull'> {
  const base = effectiveBaseUrl(ctx, 'ollama', input.baseUrl)
  const key = `${base}\0${input.model}`
  if (pulling.has(key)) return { started: false }
  pulling.add(key)
  const progress = (p: {
    status: string
    completed?: number
    total?: number
    done?: boolean
    error?: string
  }) => ctx.broadcast({ type: 'host.pull-progress', model: input.model, done: false, ...p })
  void (async () => {
    try {
      const res = await fetch(joinUrl(base, '/api/pull'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: input.model, stream: true }),
      })
      if (!res.ok || !res.body)
        throw new Error(`Ollama answered ${res.status}: ${(await res.text()).slice(0, 300)}`)
      let failure: string | undefined
      let succeeded = false
      const parser = new NdjsonParser((line) => {
        const obj = parseJsonObject(line)
        if (!obj) return
        if (typeof obj.error === 'string') failure = obj.error
        const status = typeof obj.status === 'string' ? obj.status : 'pulling'
        if (status === 'success') succeeded = true
        progress({
          status,
          completed: typeof obj.completed === 'number' ? obj.completed : undefined,
          total: typeof obj.total === 'number' ? obj.total : undefined,
        })
      })
      const decoder = new TextDecoder()
      const reader = res.body.getReader()
      for (let r = await reader.read(); !r.done; r = await reader.read())
        parser.push(decoder.decode(r.value, { stream: true }))
      parser.end()
      if (failure) throw new Error(failure)
      if (!succeeded) throw new Error('The pull ended before Ollama said it succeeded. Try again.')
      progress({ status: 'success', done: true })
    } catch (err) {
      const message = errorMessage(err)
      progress({ status: 'error', done: true, error: message })
    } finally {
      pulling.delete(key)
    }
  })()
  return { started: true }
}

export function setCredential(
  ctx: ServiceContext,
  input: CommandInput<'credentials/set'>,
): CommandOutput<'credentials/set'> {
  if (/\s/.test(input.key)) throw new ServiceError('An API key has no spaces; paste it again.')
  ctx.keys.set(input.provider, input.key)
  return { ok: true }
}
