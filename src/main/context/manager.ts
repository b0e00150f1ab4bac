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
  summaryCut,
  summaryItem,
  summaryRequest,
} from './compaction'
import { createTokenCounter, type TokenCounter } from './tokens'
import { resolveContextWindow } from './windows'

/** Rough characters per token, to size the summary request's input. */
const CHARS_PER_TOKEN = 3.5

/**
 * Keeps each request inside the model's window (DESIGN §7): counts it, compacts
 * the transcript at 80 %, and never lets a request larger than the window go out.
 * The transcript in the request is mutated in place, so the loop's copy follows.
 */
export class ContextManager {
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

  /** What the server reported for a request we estimated, to keep the meter honest. */
  calibrate(estimated: number, reported: number): void {
    this.counter.calibrate(estimated, reported)
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
    if (!fits()) summary = await this.summarize(request, window, signal, KEEP_RECENT_ITEMS)
    if (!fits())
      dropped += dropOldToolResults(transcript, this.estimate(request) - budget, itemTokens, 1).dropped
    if (!fits()) summary = (await this.summarize(request, window, signal, 2)) ?? summary
    const after = this.estimate(request)
    if (dropped > 0 || summary !== undefined) {
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

  private async summarize(
    request: ModelRequest,
    window: number,
    signal: AbortSignal,
    keepRecent: number,
  ): Promise<string | undefined> {
    const transcript = request.transcript
    const cut = summaryCut(transcript, keepRecent)
    if (cut <= 1) return undefined
    const prefix = transcript.slice(1, cut)
    const maxChars = Math.floor(window * 0.5 * CHARS_PER_TOKEN)
    const turn = await this.provider.streamTurn(
      summaryRequest(prefix, maxChars),
      { onText: () => {}, onTraffic: this.onTraffic },
      signal,
    )
    const summary = turn.text.trim() || 'The earlier part of the session could not be summarised.'
    transcript.splice(1, cut - 1, summaryItem(summary))
    return summary
  }
}
