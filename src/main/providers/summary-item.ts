import type { TranscriptItem } from './types'

/* The transcript item a compaction leaves in place of the turns it summarised (context/compaction.ts writes it; the transcript rebuilds it on replay). */

const SUMMARY_HEADER =
  '[Summary of the earlier part of this session, written to save context. Files may have changed since; re-read before editing.]'

export function summaryItem(summary: string): TranscriptItem {
  return { role: 'user', text: `${SUMMARY_HEADER}\n${summary.trim()}` }
}

/** Whether `item` is a summary an earlier compaction wrote (summaryItem). */
export function isSummaryItem(item: TranscriptItem): boolean {
  return item.role === 'user' && item.text.startsWith(SUMMARY_HEADER)
}
