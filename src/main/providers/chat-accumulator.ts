import { recordOf } from '../../shared/records'
import type { ToolCall } from '../../shared/protocol'
import { newCallId } from './ids'

/**
 * Accumulates streamed Chat Completions tool-call deltas into whole calls, tolerating
 * what real servers send (docs/model-protocols.md#chat-tool-call-deltas):
 * - A: a whole call in one chunk;  B: empty arguments → "{}";
 * - C: the name arriving after the id;  D: no id, name repeated on every chunk (vLLM);
 * - E: continuation chunks with `name:""` / `id:""` (LM Studio);  F: no `index` at all;
 * - G: index 0 reused by a second call with a new id (lmdeploy/sglang);
 * - an index starting at 1 or sparse (Anthropic compat); ids repeated on every chunk.
 * Whether the model called a tool is decided from these calls, never finish_reason.
 */

/** One tool-call fragment as a server should send it; `push` reads each field with a check all the same. */
export type ToolCallDelta = {
  index?: number
  id?: string
  type?: string
  function?: { name?: string; arguments?: unknown }
}

interface PartialCall {
  id: string | undefined
  name: string
  arguments: string
}

export class ChatToolCallAccumulator {
  private readonly calls: PartialCall[] = []
  /** The call currently being filled for each wire `index`. */
  private readonly byIndex = new Map<number, PartialCall>()

  /** Adds one fragment; answers the tool's name when this fragment is the first to name its call. */
  push(delta: Record<string, unknown>): string | undefined {
    const id = typeof delta.id === 'string' && delta.id !== '' ? delta.id : undefined
    const fn = recordOf(delta.function)
    const name = typeof fn.name === 'string' ? fn.name : ''
    const rawArgs = fn.arguments
    // Some servers send arguments as an object; keep our wire-level contract (a string).
    const args = typeof rawArgs === 'string' ? rawArgs : rawArgs == null ? '' : JSON.stringify(rawArgs)
    const index = typeof delta.index === 'number' ? delta.index : undefined

    let call = this.target(index, id, name)
    if (!call) {
      call = { id, name: '', arguments: '' }
      this.calls.push(call)
    }
    if (index !== undefined) this.byIndex.set(index, call)
    if (id && !call.id) call.id = id
    // Names are repeated (vLLM) or "" (LM Studio) on continuation chunks: set once, never concatenate.
    const named = name !== '' && call.name === ''
    if (named) call.name = name
    call.arguments += args
    return named ? name : undefined
  }

  private target(index: number | undefined, id: string | undefined, name: string): PartialCall | undefined {
    if (index !== undefined) {
      const existing = this.byIndex.get(index)
      if (!existing) return undefined
      if (id && existing.id && id !== existing.id) return undefined // case G: a new call reusing the index
      return existing
    }
    if (id) return this.calls.find((c) => c.id === id)
    // No index and no id: a continuation of the last call, unless that call is already
    // complete and this chunk names a tool (a second call from a server without ids).
    const last = this.calls.at(-1)
    if (!last) return undefined
    if (name && last.name && isCompleteJson(last.arguments)) return undefined
    return last
  }

  /** The finished calls: ids filled in, empty arguments as "{}", nameless empty fragments dropped. */
  finish(): ToolCall[] {
    return this.calls
      .filter((c) => c.name !== '' || c.arguments.trim() !== '')
      .map((c) => ({
        id: c.id ?? newCallId(),
        name: c.name,
        arguments: c.arguments.trim() === '' ? '{}' : c.arguments,
      }))
  }
}

function isCompleteJson(text: string): boolean {
  if (text.trim() === '') return false
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}
