import fs from 'node:fs'
import path from 'node:path'
import { findResourcesDir } from '../config/resources'
import type { ModelProvider } from '../providers/types'

interface ModelEntry {
  contextWindow: number
  inputPerMTok?: number
  outputPerMTok?: number
}

interface ModelTable {
  models: Record<string, ModelEntry>
  defaults: Record<string, number>
}

let table: ModelTable | undefined

/** At or below this window a session gets the compact prompt (compact-prompt.ts, repo-map.ts). */
export const COMPACT_PROMPT_WINDOW = 8192

/** resources/models.json: windows and prices of cloud models, editable by the user. */
export function modelTable(resourcesDir = findResourcesDir()): ModelTable {
  if (!table)
    table = JSON.parse(fs.readFileSync(path.join(resourcesDir, 'models.json'), 'utf8')) as ModelTable
  return table
}

/** The entry whose key is the longest prefix of the model name (`gpt-4.1-mini-2025…` → `gpt-4.1-mini`). */
export function lookupModel(model: string, t = modelTable()): ModelEntry | undefined {
  const name = model.toLowerCase().replace(/^openai\//, '')
  let best: string | undefined
  for (const key of Object.keys(t.models)) {
    if (name.startsWith(key) && (!best || key.length > best.length)) best = key
  }
  return best ? t.models[best] : undefined
}

/**
 * The context window of the model as it will actually run: what the provider
 * knows (Ollama: the num_ctx it sends), else the table, else the provider default.
 */
export async function resolveContextWindow(provider: ModelProvider, signal?: AbortSignal): Promise<number> {
  return (await findContextWindow(provider, signal)).tokens
}

/** `resolveContextWindow`, saying which of the three gave it (the meter shows where it comes from). */
export async function findContextWindow(
  provider: ModelProvider,
  signal?: AbortSignal,
): Promise<{ tokens: number; from: 'provider' | 'table' | 'default' }> {
  if (provider.contextWindow) {
    const fromProvider = await provider.contextWindow(signal).catch(() => undefined)
    if (fromProvider) return { tokens: fromProvider, from: 'provider' }
  }
  const t = modelTable()
  const entry = lookupModel(provider.model, t)
  if (entry) return { tokens: entry.contextWindow, from: 'table' }
  return { tokens: t.defaults[provider.id] ?? 8192, from: 'default' }
}
