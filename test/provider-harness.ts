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
  /** The names `onToolCall` announced, in order; `(after the end)` when the whole response was in. */
  calls: string[]
}

/** Runs one streamed turn, capturing text deltas, announced calls, traffic and the result or the error. */
export async function runTurn(
  provider: ModelProvider,
  request: ModelRequest,
  signal = new AbortController().signal,
): Promise<TurnOutcome> {
  const deltas: string[] = []
  const traffic: TrafficEntry[] = []
  const calls: string[] = []
  // The response's body is logged once it has all come: a call announced before that was announced mid-stream.
  const ended = () => traffic.some((e) => e.direction === 'response')
  const handlers = {
    onText: (d: string) => deltas.push(d),
    onTraffic: (e: TrafficEntry) => traffic.push(e),
    onToolCall: (name: string) => calls.push(ended() ? `${name} (after the end)` : name),
  }
  try {
    return { turn: await provider.streamTurn(request, handlers, signal), deltas, traffic, calls }
  } catch (error) {
    return { error, deltas, traffic, calls }
  }
}
