import type { ModelRequest, TranscriptItem } from '../providers/types'

/**
 * Compaction (docs/architecture.md#context): when a request nears the model's window, first the
 * oldest tool results are dropped (the model can re-read them), then older turns
 * are summarised by the model. Both keep the transcript valid for every wire
 * protocol: each tool result still answers its call.
 */

/** Share of the window a request may fill before compaction starts. */
export const COMPACT_AT = 0.8
/** Share of the window compaction aims for, leaving room for several turns before the next. */
export const COMPACT_TO = 0.6
/** After a context_length_exceeded answer our estimate was wrong: aim lower. */
export const COMPACT_AFTER_OVERFLOW_TO = 0.5
/** The newest items are never touched: the model is working with them. */
export const KEEP_RECENT_ITEMS = 6

export const DROPPED_RESULT =
  '{"ok":true,"dropped":"[This tool result was dropped to save context. Call the tool again if you need it.]"}'

/**
 * Replaces the outputs of tool results older than the last `keepRecent` items
 * with a short stub, oldest first, until `tokensToSave` are saved (by
 * `itemTokens`' count). Mutates `transcript` in place; returns what it did.
 * One pass, so compacting a long session stays linear in its length.
 */
export function dropOldToolResults(
  transcript: TranscriptItem[],
  tokensToSave: number,
  itemTokens: (item: TranscriptItem) => number,
  keepRecent = KEEP_RECENT_ITEMS,
): { dropped: number; saved: number } {
  let dropped = 0
  let saved = 0
  const end = transcript.length - keepRecent
  for (let i = 0; i < end && saved < tokensToSave; i++) {
    const item = transcript[i]
    if (item.role !== 'tool' || item.output === DROPPED_RESULT) continue
    const stub = { ...item, output: DROPPED_RESULT }
    saved += itemTokens(item) - itemTokens(stub)
    transcript[i] = stub
    dropped += 1
  }
  return { dropped, saved }
}

/**
 * Where the summarised prefix ends: the items in [1, cut) are replaced by a summary
 * (item 0, the task, stays verbatim). `cut` lands on a user or assistant item, so
 * no tool result is separated from the call it answers. 1 means nothing to cut.
 */
export function summaryCut(transcript: TranscriptItem[], keepRecent = KEEP_RECENT_ITEMS): number {
  let cut = Math.max(1, transcript.length - keepRecent)
  while (cut > 1 && transcript[cut]?.role === 'tool') cut -= 1
  return cut
}

/**
 * Where a compaction on request cuts: like summaryCut, but a tool result at the cut moves it
 * forward, past the results, so a run of one message (its task, calls and results, then the
 * answer) keeps its answer and summarises its work rather than keeping all of it.
 */
export function requestCut(transcript: TranscriptItem[], keepRecent: number): number {
  let cut = Math.max(1, transcript.length - keepRecent)
  while (cut < transcript.length && transcript[cut]?.role === 'tool') cut += 1
  return cut
}

const SUMMARY_SYSTEM = [
  'You summarise the earlier part of a coding session so that it can continue in a smaller context.',
  'Keep: the goal, decisions made, files read and what matters in them, changes made (file and what changed),',
  'errors met and how they were solved, what remains to do. Be concrete (paths, names, line numbers).',
  'Write plain prose and lists, at most about 400 words. Do not call tools.',
].join(' ')

const MAX_RESULT_CHARS = 2000

function renderItem(item: TranscriptItem): string {
  switch (item.role) {
    case 'user':
      return `USER: ${item.text}`
    case 'assistant': {
      const calls = item.toolCalls.map((c) => `[called ${c.name} ${c.arguments}]`).join(' ')
      return `ASSISTANT: ${item.text}${calls ? ` ${calls}` : ''}`
    }
    case 'tool': {
      const out =
        item.output.length > MAX_RESULT_CHARS ? `${item.output.slice(0, MAX_RESULT_CHARS)}…` : item.output
      return `TOOL ${item.name} RESULT: ${out}`
    }
  }
}

/**
 * The request that asks the model for a summary of `items`, within `maxChars`. `focus`: what
 * the user asked the summary to keep above all (`/compact focus text`).
 */
export function summaryRequest(items: TranscriptItem[], maxChars: number, focus?: string): ModelRequest {
  let text = items.map(renderItem).join('\n\n')
  // Keep the end (the most recent work) when even the rendered prefix is too long.
  if (text.length > maxChars) text = `…${text.slice(text.length - maxChars)}`
  const ask = focus?.trim() ? `\n\nThe user asks the summary to keep above all: ${focus.trim()}` : ''
  return {
    system: SUMMARY_SYSTEM,
    transcript: [{ role: 'user', text: `Summarise this session so far:\n\n${text}${ask}` }],
    tools: [],
  }
}

/**
 * A rewritten transcript cannot continue a server-side chain (Responses'
 * previous_response_id): forget the ids so the next request sends the history.
 */
export function forgetResponseIds(transcript: TranscriptItem[]): void {
  for (let i = 0; i < transcript.length; i++) {
    const item = transcript[i]
    if (item.role === 'assistant' && item.responseId) transcript[i] = { ...item, responseId: undefined }
  }
}
