import type { CommandInput, CommandOutput, ModelInfo, ProviderId, SetupProblem } from '../../shared/protocol'
import { lookupModel } from '../context/windows'
import { OPENAI_DEFAULT_BASE_URL, ollamaBaseUrl } from '../providers'
import { joinUrl, requestJson } from '../providers/http'
import { NdjsonParser, parseJsonObject } from '../providers/ndjson'
import type { ServiceContext } from './context'
import { ServiceError } from './sessions'

/**
 * The model picker's side of the core: which models a server has, pulling an
 * Ollama model with progress, and the onboarding check that names what is
 * missing (server down, model not pulled, key absent) and how to fix it.
 */

function baseUrlOf(provider: ProviderId, baseUrl: string | undefined): string {
  if (provider === 'ollama') return ollamaBaseUrl(baseUrl ?? process.env.OLLAMA_HOST)
  return baseUrl ?? process.env.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL
}

const TIMEOUT_MS = 5000

async function ollamaModels(base: string): Promise<ModelInfo[]> {
  const body = (await requestJson({
    url: joinUrl(base, '/api/tags'),
    method: 'GET',
    provider: 'ollama',
    signal: AbortSignal.timeout(TIMEOUT_MS),
  })) as {
    models?: Array<{ name?: string; model?: string; size?: number; details?: Record<string, unknown> }>
  }
  return (body.models ?? []).flatMap((m) => {
    const name = m.name ?? m.model
    if (!name) return []
    const details = m.details ?? {}
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
  const body = (await requestJson({
    url: joinUrl(base, '/models'),
    method: 'GET',
    provider,
    apiKey: ctx.keys.get(provider),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  })) as { data?: Array<{ id?: string }> }
  return (body.data ?? [])
    .flatMap((m) => (m.id ? [m.id] : []))
    .sort()
    .map((name) => ({ name, ...lookupModel(name) }))
}

export async function listModels(
  ctx: ServiceContext,
  input: CommandInput<'models/list'>,
): Promise<CommandOutput<'models/list'>> {
  const base = baseUrlOf(input.provider, input.baseUrl)
  try {
    const models =
      input.provider === 'ollama' ? await ollamaModels(base) : await openaiModels(ctx, input.provider, base)
    return { reachable: true, models }
  } catch (err) {
    return { reachable: false, error: (err as Error).message, models: [] }
  }
}

const pulling = new Set<string>()

/** Starts `ollama pull`; progress goes out as `host.pull-progress`, the last one with `done`. */
export function pullModel(
  ctx: ServiceContext,
  input: CommandInput<'models/pull'>,
): CommandOutput<'models/pull'> {
  const base = baseUrlOf('ollama', input.baseUrl)
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
      for await (const chunk of res.body) parser.push(decoder.decode(chunk as Uint8Array, { stream: true }))
      parser.end()
      if (failure) throw new Error(failure)
      if (!succeeded) throw new Error('The pull ended before Ollama said it succeeded. Try again.')
      progress({ status: 'success', done: true })
    } catch (err) {
      const message = (err as Error).message
      progress({ status: 'error', done: true, error: message })
    } finally {
      pulling.delete(key)
    }
  })()
  return { started: true }
}

export async function checkModel(
  ctx: ServiceContext,
  input: CommandInput<'models/check'>,
): Promise<CommandOutput<'models/check'>> {
  const problems: SetupProblem[] = []
  const base = baseUrlOf(input.provider, input.baseUrl)
  if (input.provider !== 'ollama' && !ctx.keys.get(input.provider) && base === OPENAI_DEFAULT_BASE_URL) {
    problems.push({
      code: 'key-missing',
      message: 'No OpenAI API key is set.',
      fix: 'Enter your key in Models → API key (it is stored encrypted on this machine), or set OPENAI_API_KEY.',
    })
    return { ok: false, problems }
  }
  const listed = await listModels(ctx, { provider: input.provider, baseUrl: input.baseUrl })
  if (!listed.reachable) {
    problems.push(
      input.provider === 'ollama'
        ? {
            code: 'server-down',
            message: `Ollama is not running at ${base}.`,
            fix: 'Start it with `ollama serve` (or open the Ollama app), or set its address under Models.',
          }
        : {
            code: 'server-down',
            message: `The model server at ${base} did not answer: ${listed.error ?? 'no reply'}.`,
            fix: 'Check the base URL and your network, and that the API key is valid.',
          },
    )
  } else if (!listed.models.some((m) => m.name === input.model || m.name === `${input.model}:latest`)) {
    problems.push(
      input.provider === 'ollama'
        ? {
            code: 'model-missing',
            message: `The model ${input.model} is not pulled.`,
            fix: `Pull it from the model picker, or run \`ollama pull ${input.model}\`.`,
          }
        : {
            code: 'model-missing',
            message: `The server does not list a model named ${input.model}.`,
            fix: 'Pick one of the listed models.',
          },
    )
  }
  return { ok: problems.length === 0, problems }
}

export function setCredential(
  ctx: ServiceContext,
  input: CommandInput<'credentials/set'>,
): CommandOutput<'credentials/set'> {
  if (/\s/.test(input.key)) throw new ServiceError('An API key has no spaces; paste it again.')
  ctx.keys.set(input.provider, input.key)
  return { ok: true }
}
