import { parseJsonObject } from '../../shared/records'
import type { EventDraft } from '../../shared/protocol'
import type { ModelProvider, ModelRequest, TrafficEntry, TranscriptItem } from '../providers/types'
import { ProviderError } from '../providers/types'
import {
  COMPACT_AFTER_OVERFLOW_TO,
  COMPACT_AT,
  COMPACT_TO,
  KEEP_RECENT_ITEMS,
  dropOldToolResults,
  forgetResponseIds,
  requestCut,
  summaryCut,
  summaryRequest,
} from './compaction'
import { isSummaryItem, summaryItem } from '../providers/summary-item'
import type { ToolDefinition, ToolSpec } from '../tools/types'
import { toolSpecsForWindow } from './compact-prompt'
import { cutToolOutput } from './cut'
import { createTokenCounter, type TokenCounter } from './tokens'
import { resolveContextWindow } from './windows'

/** Most of the window one tool result may take when it arrives; `fit` cuts further if needed. */
const MAX_RESULT_SHARE = 0.5
/** A cut result keeps at least this much, so its marker and a useful start survive. */
const MIN_CUT_TOKENS = 96
/** Below this, a prefix is about the size of its summary: summarising would save nothing. */
const MIN_SUMMARISED_TOKENS = 800

/** Whose count the meter shows: the server's, or ours when it reported nothing or less. */
export type PromptSource = 'reported' | 'estimated'

/** A compaction on request keeps the last exchange verbatim: the model is answering from it. */
const KEEP_ON_REQUEST = 2

/** What a compaction on request did: `summary` is absent when there was too little to summarise. */
export interface CompactionOnRequest {
  beforeTokens: number
  afterTokens: number
  summary?: string
}

/** Rough characters per token, to size the summary request's input. */
const CHARS_PER_TOKEN = 3.5

/**
 * Keeps each request inside the model's window (docs/architecture.md#context): counts it, compacts
 * the transcript at 80 %, and never lets a request larger than the window go out.
 * The transcript in the request is mutated in place, so the loop's copy follows.
 */
export class ModelWindow {
  private window: number | undefined
  private readonly counter: TokenCounter

  constructor(
    private readonly provider: ModelProvider,
    private readonly record: (draft: EventDraft) => void,
    private readonly onTraffic: (entry: TrafficEntry) => void,
  ) {
    this.counter = createTokenCounter(provider.model)
  }

  async windowTokens(signal?: AbortSignal): Promise<number> {
    this.window ??= await resolveContextWindow(this.provider, signal)
    return this.window
  }

  estimate(request: ModelRequest): number {
    return this.counter.request(request)
  }

  /**
   * What the server reported for a request we estimated. A count below our estimate is
   * not trusted (a prompt cache makes Ollama count only the new tokens; some servers
   * send 0 or nothing): the larger of the two is used, for calibration and the meter.
   */
  calibrate(estimated: number, reported: number): { usedTokens: number; promptSource: PromptSource } {
    if (reported >= estimated && reported > 0) {
      this.counter.calibrate(estimated, reported)
      return { usedTokens: reported, promptSource: 'reported' }
    }
    return { usedTokens: estimated, promptSource: 'estimated' }
  }

  /** The tool specs for this model's window: the compact set on a small window (compact-prompt.ts). */
  async toolSpecs(tools: readonly ToolDefinition[], signal?: AbortSignal): Promise<ToolSpec[]> {
    return toolSpecsForWindow(tools, await this.windowTokens(signal))
  }

  /** A tool's output as it enters the transcript: cut, with a marker, when it would take over half the window. */
  async capToolOutput(
    call: { name: string; arguments: string },
    output: string,
    signal?: AbortSignal,
  ): Promise<string> {
    const max = Math.floor((await this.windowTokens(signal)) * MAX_RESULT_SHARE)
    return cutToolOutput(
      output,
      { maxTokens: max, count: (t) => this.counter.text(t) },
      { name: call.name, args: argsOf(call) },
    )
  }

  /**
   * Compacts `request.transcript` to 60 % of the window when the request passes 80 % (or,
   * after the server said it overflowed, to half its size and at most 50 %). Throws a
   * context-overflow ProviderError when even the compacted request cannot fit.
   */
  async fit(
    request: ModelRequest,
    signal: AbortSignal,
    opts: { afterOverflow?: boolean } = {},
  ): Promise<void> {
    const window = await this.windowTokens(signal)
    const before = this.estimate(request)
    // After an overflow the server counted more than we did: halve what we send.
    if (!opts.afterOverflow && before <= Math.floor(window * COMPACT_AT)) return
    // Compact well below the trigger, so a long session compacts now and then, not every turn.
    const budget = opts.afterOverflow
      ? Math.floor(Math.min(window * COMPACT_AFTER_OVERFLOW_TO, before / 2))
      : Math.floor(window * COMPACT_TO)
    const transcript = request.transcript
    const fits = () => this.estimate(request) <= budget
    const itemTokens = (item: TranscriptItem) => this.counter.item(item)

    // Cheapest first: old tool results (they can be re-read), then a summary of older
    // turns, then every tool result but the newest, then a summary of all but the
    // newest call and its result.
    let dropped = dropOldToolResults(transcript, before - budget, itemTokens).dropped
    let summary: string | undefined
    if (!fits()) summary = await this.summarize(request, signal, summaryCut(transcript, KEEP_RECENT_ITEMS))
    if (!fits())
      dropped += dropOldToolResults(transcript, this.estimate(request) - budget, itemTokens, 1).dropped
    if (!fits()) summary = (await this.summarize(request, signal, summaryCut(transcript, 2))) ?? summary
    // Last: a result too large for the window, even alone, is cut with a marker saying how to ask for less.
    const cut = fits() ? 0 : this.cutResults(request, budget)
    const after = this.estimate(request)
    if (dropped > 0 || summary !== undefined || cut > 0) {
      forgetResponseIds(transcript)
      this.record({ type: 'context.compacted', beforeTokens: before, afterTokens: after, summary })
    }
    if (after > window) {
      throw new ProviderError(
        'context-overflow',
        `the request needs about ${after} tokens even after compaction, and the window is ${window}`,
      )
    }
  }

  /**
   * Compaction on request (`/compact`, `sessions compact`), between turns: the same summary as
   * `fit`, of everything but the first message and the last exchange, whatever the window's
   * fill. Records `context.compacted` with `keptItems`, so later turns, rebuilt from the events,
   * start from the summary. Records nothing when there is too little to summarise (a prefix that
   * is only an earlier summary, or shorter than one); a model error is thrown with nothing changed.
   */
  async compactNow(request: ModelRequest, signal: AbortSignal, focus?: string): Promise<CompactionOnRequest> {
    const transcript = request.transcript
    const before = this.estimate(request)
    const cut = requestCut(transcript, KEEP_ON_REQUEST)
    if (transcript.slice(1, cut).every(isSummaryItem)) return { beforeTokens: before, afterTokens: before }
    const summary = await this.summarize(request, signal, cut, { focus })
    if (summary === undefined) return { beforeTokens: before, afterTokens: before }
    forgetResponseIds(transcript)
    const after = this.estimate(request)
    this.record({
      type: 'context.compacted',
      beforeTokens: before,
      afterTokens: after,
      summary,
      // The first message, the summary, then what was kept.
      keptItems: transcript.length - 2,
      ...(focus?.trim() ? { focus: focus.trim() } : {}),
    })
    return { beforeTokens: before, afterTokens: after, summary }
  }

  /**
   * Cuts tool results, largest first, until the request fits `budget` (or nothing more can
   * be cut). Returns how many were cut.
   */
  private cutResults(request: ModelRequest, budget: number): number {
    const transcript = request.transcript
    let cut = 0
    const done = new Set<number>()
    for (let over = this.estimate(request) - budget; over > 0; over = this.estimate(request) - budget) {
      let largest = -1
      let item: Extract<TranscriptItem, { role: 'tool' }> | undefined
      for (let i = 0; i < transcript.length; i++) {
        const it = transcript[i]
        if (it.role !== 'tool' || done.has(i)) continue
        if (!item || this.counter.item(it) > this.counter.item(item)) {
          largest = i
          item = it
        }
      }
      if (!item) break
      done.add(largest)
      const size = this.counter.text(item.output)
      const target = Math.max(MIN_CUT_TOKENS, Math.floor(size - over))
      if (target >= size) continue
      const output = cutToolOutput(
        item.output,
        { maxTokens: target, count: (t) => this.counter.text(t), outputTokens: size },
        { name: item.name, args: argsOf(callFor(transcript, item.callId)) },
      )
      if (output === item.output) continue
      transcript[largest] = { ...item, output }
      cut += 1
    }
    return cut
  }

  private async summarize(
    request: ModelRequest,
    signal: AbortSignal,
    /** Items [1, cut) are summarised. */
    cut: number,
    onRequest?: { focus?: string },
  ): Promise<string | undefined> {
    const transcript = request.transcript
    if (cut <= 1) return undefined
    const prefix = transcript.slice(1, cut)
    // A summary costs a model call and a few hundred tokens: not worth it for a short prefix.
    if (prefix.reduce((sum, it) => sum + this.counter.item(it), 0) < MIN_SUMMARISED_TOKENS) return undefined
    const maxChars = Math.floor((await this.windowTokens(signal)) * 0.5 * CHARS_PER_TOKEN)
    const turn = await this.provider.streamTurn(
      summaryRequest(prefix, maxChars, onRequest?.focus),
      { onText: () => {}, onTraffic: this.onTraffic },
      signal,
    )
    // Asked for, an empty answer changes nothing; inside a turn, the request must shrink anyway.
    if (!turn.text.trim() && onRequest)
      throw new Error('The model answered with an empty summary; nothing was changed.')
    const summary = turn.text.trim() || 'The earlier part of the session could not be summarised.'
    transcript.splice(1, cut - 1, summaryItem(summary))
    return summary
  }
}

/** The assistant call a tool result answers, for its arguments. */
function callFor(transcript: TranscriptItem[], callId: string): { arguments: string } | undefined {
  for (let i = transcript.length - 1; i >= 0; i--) {
    const it = transcript[i]
    if (it.role === 'assistant') {
      const call = it.toolCalls.find((c) => c.id === callId)
      if (call) return call
    }
  }
  return undefined
}

function argsOf(call: { arguments: string } | undefined): Record<string, unknown> {
  return parseJsonObject(call?.arguments ?? '{}') ?? {}
}
