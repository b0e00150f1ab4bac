import { providerDescriptor } from '../../shared/providers'

/**
 * The environment's word on a provider, by the variables its descriptor names
 * (`$OLLAMA_HOST`, `$OPENAI_BASE_URL`, `$OPENAI_MODEL`, …): blank counts as unset.
 */
export function envBaseUrl(provider: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return envValue(providerDescriptor(provider).env.baseUrl, env)
}

export function envModel(provider: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return envValue(providerDescriptor(provider).env.model, env)
}

function envValue(variable: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  return (variable && env[variable]?.trim()) || undefined
}
