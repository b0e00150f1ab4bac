import type { ToolSpec } from '../src/main/tools/types'
import type { ModelProvider, ModelRequest, ModelTurn, TrafficEntry } from '../src/main/providers/types'

/** Tools most provider tests offer the model. */
export const TEST_TOOLS: ToolSpec[] = [
  {
    name: 'read_file',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'list_dir',
    description: 'List a directory',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
]

export function userRequest(text = 'Open src/main.ts', tools: ToolSpec[] = TEST_TOOLS): ModelRequest {
  return { system: 'You are a coding agent.', transcript: [{ role: 'user', text }], tools }
}

export interface TurnOutcome {
  turn?: ModelTurn
  error?: unknown
  deltas: string[]
  traffic: TrafficEntry[]
}

/** Runs one streamed turn, capturing text deltas, traffic and the result or the error. */
export async function runTurn(
  provider: ModelProvider,
  request: ModelRequest,
  signal = new AbortController().signal,
): Promise<TurnOutcome> {
  const deltas: string[] = []
  const traffic: TrafficEntry[] = []
  const handlers = { onText: (d: string) => deltas.push(d), onTraffic: (e: TrafficEntry) => traffic.push(e) }
  try {
    return { turn: await provider.streamTurn(request, handlers, signal), deltas, traffic }
  } catch (error) {
    return { error, deltas, traffic }
  }
}
