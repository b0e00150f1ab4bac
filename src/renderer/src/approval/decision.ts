import { applyHunks, summarizeSelection, type Hunk } from './hunks'
import type { ApprovalAnswer } from './types'

export interface FileDecisionInput {
  before: string | null
  after: string | null
  hunks: readonly Hunk[]
  accepted: ReadonlySet<number>
  /** The modified text when the user edited it (changed since editing began), else null. */
  editedText: string | null
}

/**
 * The answer the main Accept button sends for a file change, or null when it must be disabled (every
 * hunk rejected and nothing edited: the user should Reject instead).
 */
export function fileAcceptAnswer(input: FileDecisionInput): ApprovalAnswer | null {
  const { before, after, hunks, accepted, editedText } = input
  if (editedText !== null) {
    return editedText === (after ?? '')
      ? { decision: 'accept' }
      : { decision: 'edited', editedContent: editedText }
  }
  const s = summarizeSelection(hunks, accepted)
  if (s.allAccepted) return { decision: 'accept' }
  if (s.noneAccepted) return null
  return { decision: 'partial', editedContent: applyHunks(before, after, accepted) }
}

/** The main Accept button's label, with its key. */
export function fileAcceptLabel(
  hunks: readonly Hunk[],
  accepted: ReadonlySet<number>,
  edited: boolean,
): string {
  if (edited) return 'Accept edited (Y)'
  const s = summarizeSelection(hunks, accepted)
  if (s.allAccepted || s.noneAccepted) return 'Accept (Y)'
  return `Apply ${s.accepted} of ${s.total} hunks (Y)`
}
