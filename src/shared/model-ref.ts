import type { ProviderId } from './protocol'
import { isProviderId } from './providers'

/**
 * How a model is named by the user: `NAME` (looked up on every configured provider) or
 * `PROVIDER:NAME` (`ollama:qwen2.5-coder:7b`, `openai:gpt-4.1-mini`, `openai-chat:my-model`).
 * Shared by `/model` in the app, the core's resolver and the CLI's `--model`.
 */

export interface ModelRef {
  provider?: ProviderId
  model: string
}

/**
 * Splits a leading provider id off a model name. Ollama names hold colons themselves
 * (`qwen2.5-coder:7b`), so only a known provider id before the first colon counts.
 */
export function parseModelRef(text: string): ModelRef {
  const trimmed = text.trim()
  const colon = trimmed.indexOf(':')
  if (colon > 0) {
    const prefix = trimmed.slice(0, colon).toLowerCase()
    const rest = trimmed.slice(colon + 1).trim()
    if (isProviderId(prefix) && rest) return { provider: prefix, model: rest }
  }
  return { model: trimmed }
}

/** `ollama:NAME`: the form that names a model on one provider only. */
export function formatModelRef(provider: ProviderId, model: string): string {
  return `${provider}:${model}`
}

/** Ollama names a model `name:tag`; `name` alone means `name:latest`. */
export function sameModelName(a: string, b: string): boolean {
  const norm = (s: string) => (s.includes(':') ? s : `${s}:latest`)
  return a === b || norm(a) === norm(b)
}
