import { ProviderError, type ModelProvider } from '../providers/types'

export interface DescribedError {
  code: string
  message: string
  hint?: string
}

/** Turns a model failure into words for the user: what happened and what to try. */
export function describeProviderError(
  err: unknown,
  provider: Pick<ModelProvider, 'id' | 'model' | 'baseUrl'>,
): DescribedError {
  const where = `${provider.id} model "${provider.model}" at ${provider.baseUrl}`
  if (!(err instanceof ProviderError)) {
    return {
      code: 'internal',
      message: `Internal error: ${err instanceof Error ? err.message : String(err)}`,
    }
  }
  switch (err.kind) {
    case 'network':
      return {
        code: 'model-unreachable',
        message: `Cannot reach the ${where}: ${err.message}`,
        hint:
          provider.id === 'ollama'
            ? 'Is Ollama running (`ollama serve`)? Set --base-url or OLLAMA_HOST if it listens elsewhere.'
            : 'Is the server running and the URL right? Set --base-url or OPENAI_BASE_URL.',
      }
    case 'auth':
      return {
        code: 'auth',
        message: `The ${where} refused the API key: ${err.message}`,
        hint: 'Set OPENAI_API_KEY (or store a key in settings) with a valid key for this server.',
      }
    case 'quota':
      return {
        code: 'quota',
        message: `The account behind the ${where} is out of quota: ${err.message}`,
        hint: 'Check the plan and billing of this API account, or switch to another provider (e.g. --provider ollama).',
      }
    case 'not-found':
      return {
        code: 'model-not-found',
        message: `The ${where} does not know this model: ${err.message}`,
        hint:
          provider.id === 'ollama'
            ? `Pull it first (\`ollama pull ${provider.model}\`) or pick an installed model with --model.`
            : 'Check the model name given with --model.',
      }
    case 'rate-limit':
      return {
        code: 'rate-limit',
        message: `The ${where} kept rate-limiting after several retries: ${err.message}`,
        hint: 'Wait a minute and run again, or use a model with a higher limit.',
      }
    case 'server':
      return {
        code: 'server-error',
        message: `The ${where} kept failing after several retries: ${err.message}`,
        hint: 'The server may be overloaded or down; try again later.',
      }
    case 'context-overflow':
      return {
        code: 'context-overflow',
        message: `The conversation no longer fits the context window of the ${where}: ${err.message}`,
        hint: 'Start a new session with a narrower task, or use a model with a larger window.',
      }
    case 'bad-response':
      return {
        code: 'bad-response',
        message: `The server at ${provider.baseUrl} did not answer like a ${provider.id} model server: ${err.message}`,
        hint: 'Check --base-url and --provider (OpenAI-compatible servers usually need /v1 at the end of the URL).',
      }
    case 'bad-request':
      return {
        code: 'bad-request',
        message: `The ${where} rejected the request: ${err.message}`,
        hint: 'The model may not support tool calling; try another model.',
      }
    case 'timeout':
      return {
        code: 'model-timeout',
        message: `The ${where} timed out after several retries: ${err.message}`,
        hint: err.hint,
      }
    case 'too-long':
      return {
        code: 'answer-too-long',
        message: `The ${where} answered past the length cap: ${err.message}`,
        hint: err.hint,
      }
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
