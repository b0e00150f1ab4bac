import fs from 'node:fs'
import path from 'node:path'
import { findResourcesDir } from '../config/resources'
import { z } from 'zod'
import type { ModelProvider } from '../providers/types'

const ModelEntry = z.object({
  contextWindow: z.number().int().positive(),
  inputPerMTok: z.number().nonnegative().optional(),
  outputPerMTok: z.number().nonnegative().optional(),
})
type ModelEntry = z.infer<typeof ModelEntry>

/** resources/models.json as the user may edit it (other top-level keys, like `about`, are ignored). */
const ModelTable = z.object({
  models: z.record(z.string(), ModelEntry),
  defaults: z.record(z.string(), z.number().int().positive()),
})
type ModelTable = z.infer<typeof ModelTable>

/** The table in `file`, or an error naming the file, the wrong field and the way out. */
function readModelTable(file: string): ModelTable {
  let json: unknown
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (err) {
    throw new Error(
      `${file} could not be read as JSON (${String(err)}): fix the file or restore it from the release.`,
      {
        cause: err,
      },
    )
  }
  const parsed = ModelTable.safeParse(json)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  throw new Error(
    `${file}: ${issue.path.join('.') || 'the file'}: ${issue.message}. Fix the entry or restore the file from the release.`,
  )
}

let table: ModelTable | undefined

/** At or below this window a session gets the compact prompt (compact-prompt.ts, repo-map.ts). */
export const COMPACT_PROMPT_WINDOW = 8192

/** resources/models.json: windows and prices of cloud models, editable by the user. */
export function modelTable(resourcesDir = findResourcesDir()): ModelTable {
  table ??= readModelTable(path.join(resourcesDir, 'models.json'))
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
