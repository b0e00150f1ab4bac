import type { StepwiseEvent, ToolCall } from '../../shared/protocol'
import { NO_PARTIAL_TEXT, withDelta, withRetry, type PartialText } from '../../shared/partial-text'
import { summaryItem } from './summary-item'
import type { ModelTurn, TranscriptItem } from './types'
import { withAttachedResources, type AttachedRead } from './attached-resources'

/**
 * The one transcript (docs/model-protocols.md#the-transcript): what the model is sent,
 * provider-neutral, for every way a turn can have ended — finished, stopped mid-stream,
 * stopped mid-tool, failed after retries, or its process killed (the events just stop).
 *
 * Two steps, both here:
 * - `transcriptFromEvents`: stored events → items (user, assistant with calls, tool results,
 *   a partly streamed answer kept and marked interrupted);
 * - `normalizeTranscript`: items → a transcript every protocol accepts, which each provider
 *   maps to its wire format without rules of its own. Every call is answered exactly once,
 *   right after its assistant turn and in call order (a missing result gets a stated
 *   "no result" answer); a result that answers no call is dropped; call ids are unique in
 *   the transcript. Results pair with calls by order, not by the server's id: some compatible
 *   servers number calls per response (`call_0`, `call_1` every turn), so an id can repeat.
 */

/** What the loop tells the model about a call a stop left unrun (Agent.loop), and the rebuild too. */
export const INTERRUPTED_OUTPUT = JSON.stringify({
  ok: false,
  error: 'Not run: the user interrupted the session.',
})

/** A call that started but whose end was never recorded (the turn was stopped or the process killed). */
export const UNFINISHED_OUTPUT = JSON.stringify({
  ok: false,
  error:
    'No result: the session ended while this tool call was running. It may have run in part; check its effect before relying on it.',
})

/** A call with no recorded answer at all (a cut history, a transcript rewritten elsewhere). */
export const MISSING_OUTPUT = JSON.stringify({ ok: false, error: 'This tool call was not run.' })

/** Appended to an answer the model was writing when its turn ended without finishing. */
export const INTERRUPTED_MARK = '[Interrupted: this answer was cut off before it finished.]'

/**
 * `calls` with every id not yet in `used` (and added to it): a repeated id gets the first free
 * `<id>_<n>`. Ids stay within [A-Za-z0-9_-] when the server's did, which strict servers require.
 */
export function uniqueCallIds(calls: readonly ToolCall[], used: Set<string>): ToolCall[] {
  return calls.map((call) => {
    let id = call.id || 'call'
    for (let n = 2; used.has(id); n++) id = `${call.id || 'call'}_${n}`
    used.add(id)
    return id === call.id ? call : { ...call, id }
  })
}

/** The call ids a session has used, in its stored events and the transcript it continues from. */
export function usedCallIds(
  events: readonly StepwiseEvent[],
  transcript: readonly TranscriptItem[],
): Set<string> {
  const used = new Set<string>()
  for (const e of events) {
    if (e.type === 'assistant.message') for (const c of e.toolCalls) used.add(c.id)
    else if (e.type === 'user.message') for (const r of e.resources ?? []) used.add(r.callId)
  }
  for (const item of transcript) if (item.role === 'assistant') for (const c of item.toolCalls) used.add(c.id)
  return used
}

/**
 * A model turn with call ids no earlier call of the session used (added to `used`), so each
 * result pairs with its own call in events, approvals and the next request. The loop applies
 * it before recording the turn. A renamed call cannot be answered on the server's chain
 * (Responses' previous_response_id): the turn loses its response id and the next request
 * sends the history.
 */
export function withUniqueCallIds(turn: ModelTurn, used: Set<string>): ModelTurn {
  const toolCalls = uniqueCallIds(turn.toolCalls, used)
  if (toolCalls.every((c, i) => c === turn.toolCalls[i])) return turn
  const { responseId: _chain, ...rest } = turn
  return { ...rest, toolCalls }
}

/** A transcript every protocol accepts (see the module comment). Idempotent. */
export function normalizeTranscript(items: readonly TranscriptItem[]): TranscriptItem[] {
  const out: TranscriptItem[] = []
  const used = new Set<string>()
  /** The last assistant turn's calls (server ids and ours) and the result found for each. */
  let open: Array<{ serverId: string; call: ToolCall; output?: string }> = []
  const close = () => {
    for (const { call, output } of open)
      out.push({ role: 'tool', callId: call.id, name: call.name, output: output ?? MISSING_OUTPUT })
    open = []
  }
  for (const item of items) {
    if (item.role === 'tool') {
      // The first call of the turn with this id still waiting; none: an orphan, dropped.
      const slot = open.find((o) => o.serverId === item.callId && o.output === undefined)
      if (slot) slot.output = item.output
      continue
    }
    close()
    if (item.role === 'user') {
      out.push(item)
      continue
    }
    const calls = uniqueCallIds(item.toolCalls, used)
    const renamed = calls.some((c, i) => c !== item.toolCalls[i])
    // A renamed call cannot be answered on the server's chain: the next request sends the history.
    const { responseId: _dropped, ...rest } = item
    out.push(renamed ? { ...rest, toolCalls: calls } : item)
    open = calls.map((call, i) => ({ serverId: item.toolCalls[i].id, call }))
  }
  close()
  return out
}

interface OpenCall {
  id: string
  name: string
  started: boolean
}

/**
 * The transcript the model had seen right after event `uptoSeq` (the whole session by
 * default), normalized. Never refuses: any end is a place to continue from. A fork that
 * must not invent an ending checks its step first (agent/resume.ts `checkForkPoint`).
 *
 * A compaction inside a turn is not replayed (the model window compacts again if the
 * next model needs it); one the user asked for between turns (`keptItems`) is. Responses
 * ids are not kept: a continued session starts a new chain on the server.
 */
export function transcriptFromEvents(events: readonly StepwiseEvent[], uptoSeq = Infinity): TranscriptItem[] {
  const replay = new TranscriptReplay()
  for (const e of events) {
    if (e.seq > uptoSeq) break
    replay.apply(e)
  }
  // The events stop here: the last turn ended (or its process was killed) as it stands.
  replay.endTurn()
  return normalizeTranscript(replay.items)
}

/** A user message that named MCP resources: its reads are attached to it, not results. */
interface Attaching {
  item: { role: 'user'; text: string }
  text: string
  reads: AttachedRead[]
  ids: string[]
}

/** The transcript rebuilt one event at a time. */
class TranscriptReplay {
  readonly items: TranscriptItem[] = []
  private open: OpenCall[] = []
  private partial: PartialText = NO_PARTIAL_TEXT
  /** The last user message that named MCP resources. */
  private attaching: Attaching | undefined

  apply(e: StepwiseEvent): void {
    switch (e.type) {
      case 'assistant.delta':
        this.partial = withDelta(this.partial, e.text)
        break
      case 'model.retry':
        this.partial = withRetry(this.partial)
        break
      case 'assistant.message':
        this.partial = NO_PARTIAL_TEXT
        this.endCalls()
        this.items.push({ role: 'assistant', text: e.text, toolCalls: e.toolCalls })
        this.open = e.toolCalls.map((c) => ({ id: c.id, name: c.name, started: false }))
        break
      case 'tool.started': {
        const call = this.open.find((c) => c.id === e.callId && !c.started)
        if (call) call.started = true
        break
      }
      case 'tool.finished':
        this.toolFinished(e)
        break
      case 'user.message':
        this.userMessage(e)
        break
      case 'toolcall.unparsed':
        // The loop asked the model to rewrite an unreadable call: the model saw it as a user turn.
        if (e.repair) this.items.push({ role: 'user', text: e.repair })
        break
      case 'context.compacted': {
        // Everything but the first message and the last `keptItems` becomes the summary.
        const items = this.items
        if (e.keptItems !== undefined && e.summary !== undefined && items.length - 1 - e.keptItems > 0)
          items.splice(1, items.length - 1 - e.keptItems, summaryItem(e.summary))
        break
      }
      case 'session.finished':
        this.endTurn()
        break
      default:
        break
    }
  }

  /** A turn ended: what streamed without a message, and calls left open, are closed as they stand. */
  endTurn(): void {
    this.endPartial()
    this.endCalls()
  }

  private toolFinished(e: Extract<StepwiseEvent, { type: 'tool.finished' }>): void {
    const attaching = this.attaching
    const read = attaching?.ids.indexOf(e.callId) ?? -1
    if (attaching && read >= 0) {
      attaching.reads[read] = { ...attaching.reads[read], result: e.result }
      attaching.item.text = withAttachedResources(attaching.text, attaching.reads)
      return
    }
    // Paired by order: the first open call with this id.
    const i = this.open.findIndex((c) => c.id === e.callId)
    if (i >= 0) this.open.splice(i, 1)
    this.items.push({ role: 'tool', callId: e.callId, name: e.name, output: JSON.stringify(e.result) })
  }

  private userMessage(e: Extract<StepwiseEvent, { type: 'user.message' }>): void {
    this.endTurn()
    const reads = (e.resources ?? []).map((r) => ({ server: r.server, uri: r.uri }))
    const item = { role: 'user' as const, text: withAttachedResources(e.text, reads) }
    this.items.push(item)
    this.attaching = reads.length
      ? { item, text: e.text, reads, ids: (e.resources ?? []).map((r) => r.callId) }
      : undefined
  }

  /** A turn that streamed but has no assistant.message: its text is kept, marked interrupted. */
  private endPartial(): void {
    const text = this.partial.text.trim()
    if (text)
      this.items.push({
        role: 'assistant',
        text: `${text}\n\n${INTERRUPTED_MARK}`,
        toolCalls: [],
        interrupted: true,
      })
    this.partial = NO_PARTIAL_TEXT
  }

  /** Calls left open when a turn ended: answered as the loop answered them, or as unfinished. */
  private endCalls(): void {
    for (const c of this.open)
      this.items.push({
        role: 'tool',
        callId: c.id,
        name: c.name,
        output: c.started ? UNFINISHED_OUTPUT : INTERRUPTED_OUTPUT,
      })
    this.open = []
  }
}
