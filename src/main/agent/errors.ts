import { ProviderError, type ModelProvider } from '../providers/types'
import { isProviderId, providerDescriptor, type ProviderDescriptor } from '../../shared/providers'
import type { ErrorCode } from '../../shared/protocol'
import { errorMessage } from '../../shared/errors'

export interface DescribedError {
  code: ErrorCode
  message: string
  hint?: string
}

/**
 * Who reads the advice: the CLI's user changes flags and environment variables; the app's
 * changes the model in its model picker (the error card's "Open models" and "Switch model").
 */
export type ErrorAudience = 'cli' | 'app'

type Where = Pick<ModelProvider, 'id' | 'model' | 'baseUrl'>

/** The provider's descriptor; none for an id no longer registered (an old session's error). */
function descriptorOf(id: string): ProviderDescriptor | undefined {
  return isProviderId(id) ? providerDescriptor(id) : undefined
}

/** ` or OLLAMA_HOST`: the variable that also sets it, where there is one. */
function or(variable: string | undefined): string {
  return variable ? ` or ${variable}` : ''
}

/** What to try, per error code, in the words of each host. */
function hintFor(code: string, provider: Where, audience: ErrorAudience): string | undefined {
  const d = descriptorOf(provider.id)
  const local = d?.localServer
  const app = audience === 'app'
  switch (code) {
    case 'model-unreachable':
      if (app)
        return local
          ? `Is ${d.label} running (\`${local.start}\`)? If it listens elsewhere, set its address in Open models.`
          : 'Is the server running? Check its address in Open models, then Retry.'
      return local
        ? `Is ${d.label} running (\`${local.start}\`)? Set --base-url${or(d.env.baseUrl)} if it listens elsewhere.`
        : `Is the server running and the URL right? Set --base-url${or(d?.env.baseUrl)}.`
    case 'auth':
      return app
        ? 'Enter a valid API key for this server in Open models.'
        : `Set ${d?.env.apiKey ?? 'a key'} (or store a key in settings) with a valid key for this server.`
    case 'quota':
      return app
        ? 'Check the plan and billing of this API account, or Switch model to another provider (a local Ollama model, say).'
        : 'Check the plan and billing of this API account, or switch to another provider (e.g. --provider ollama).'
    case 'model-not-found':
      if (local?.pull)
        return app
          ? `Pull it first (in Open models, or \`${local.pull} ${provider.model}\`), or Switch model to an installed one.`
          : `Pull it first (\`${local.pull} ${provider.model}\`) or pick an installed model with --model.`
      return app
        ? 'Check the model name: Switch model lists what the server offers.'
        : 'Check the model name given with --model.'
    case 'rate-limit':
      return app
        ? 'Wait a minute and Retry, or Switch model to one with a higher limit.'
        : 'Wait a minute and run again, or use a model with a higher limit.'
    case 'server-error':
      return app
        ? 'The server may be overloaded or down: Retry in a moment, or Switch model.'
        : 'The server may be overloaded or down; try again later.'
    case 'context-overflow':
      return app
        ? 'Compact the chat (/compact), start a new chat with a narrower task, or Switch model to one with a larger window.'
        : 'Start a new session with a narrower task, or use a model with a larger window.'
    case 'bad-response':
      return app
        ? 'Check the server address and its kind in Open models (OpenAI-compatible servers usually need /v1 at the end of the URL).'
        : 'Check --base-url and --provider (OpenAI-compatible servers usually need /v1 at the end of the URL).'
    case 'bad-request':
      return app
        ? 'The model may not support tool calling: Switch model.'
        : 'The model may not support tool calling; try another model.'
    case 'model-timeout':
      return app
        ? 'Retry: a local model that is still loading may answer the second time. If it keeps timing out, raise firstTokenTimeoutSec or idleTimeoutSec in the settings, or Switch model.'
        : undefined
    case 'answer-too-long':
      return app
        ? 'Ask for less at a time, or raise maxOutputTokens in the settings; Retry asks again.'
        : undefined
    default:
      return undefined
  }
}

const CODES: Record<ProviderError['kind'], ErrorCode> = {
  network: 'model-unreachable',
  auth: 'auth',
  quota: 'quota',
  'not-found': 'model-not-found',
  'rate-limit': 'rate-limit',
  server: 'server-error',
  'context-overflow': 'context-overflow',
  'bad-response': 'bad-response',
  'bad-request': 'bad-request',
  timeout: 'model-timeout',
  'too-long': 'answer-too-long',
}

/** Turns a model failure into words for the user: what happened and what to try. */
export function describeProviderError(
  err: unknown,
  provider: Where,
  audience: ErrorAudience = 'cli',
): DescribedError {
  const where = `${provider.id} model "${provider.model}" at ${provider.baseUrl}`
  if (!(err instanceof ProviderError)) {
    return {
      code: 'internal',
      message: `Internal error: ${errorMessage(err)}`,
    }
  }
  const code = CODES[err.kind]
  // A limit's own advice names the flag and setting that change it: the CLI's words.
  const hint = hintFor(code, provider, audience) ?? err.hint
  return { code, message: messageFor(err, where, provider), ...(hint ? { hint } : {}) }
}

function messageFor(err: ProviderError, where: string, provider: Where): string {
  switch (err.kind) {
    case 'network':
      return `Cannot reach the ${where}: ${err.message}`
    case 'auth':
      return `The ${where} refused the API key: ${err.message}`
    case 'quota':
      return `The account behind the ${where} is out of quota: ${err.message}`
    case 'not-found':
      return `The ${where} does not know this model: ${err.message}`
    case 'rate-limit':
      return `The ${where} kept rate-limiting after several retries: ${err.message}`
    case 'server':
      return `The ${where} kept failing after several retries: ${err.message}`
    case 'context-overflow':
      return `The conversation no longer fits the context window of the ${where}: ${err.message}`
    case 'bad-response':
      return `The server at ${provider.baseUrl} did not answer like a ${provider.id} model server: ${err.message}`
    case 'bad-request':
      return `The ${where} rejected the request: ${err.message}`
    case 'timeout':
      return `The ${where} timed out after several retries: ${err.message}`
    case 'too-long':
      return `The ${where} answered past the length cap: ${err.message}`
    default: {
      const unreachable: never = err.kind
      return unreachable
    }
  }
}

/** Errors that mean "the model cannot be used as configured" (CLI exit code 4). */
export function isMisconfiguration(
  kind: ProviderError['kind'] | 'internal' | 'verify-failed' | undefined,
): boolean {
  return (
    kind === 'network' ||
    kind === 'auth' ||
    kind === 'not-found' ||
    kind === 'bad-response' ||
    kind === 'timeout' ||
    kind === 'too-long'
  )
}
