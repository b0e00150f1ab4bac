import { useEffect, useMemo, useState } from 'react'
import type { McpResourceView } from '../../../shared/protocol'
import { invoke } from '../state/store'
import { matchResources, placeholderIn, resourceMention } from './mcpOffers'
import { insertMention, matchFiles, mentionAt } from './mentions'

/**
 * The message box's `@` completion: the project's files, then the MCP servers' resources
 * (`@server:uri`). What a pick does to the text is worked out here, purely (`mentionPick`).
 */

export interface MentionOffer {
  /** The `@word` at the caret, or null. */
  mention: { start: number; query: string } | null
  files: string[]
  resources: McpResourceView[]
}

export function mentionOffer(
  text: string,
  caret: number,
  files: readonly string[],
  resources: readonly McpResourceView[],
): MentionOffer {
  const mention = mentionAt(text, caret)
  if (!mention) return { mention, files: [], resources: [] }
  return {
    mention,
    files: matchFiles(files, mention.query),
    resources: matchResources(resources, mention.query),
  }
}

/** The text after a pick, with the selection to put in it (`end` > `caret`: a template's hole to type over). */
export interface MentionEdit {
  text: string
  caret: number
  end: number
}

/**
 * Suggestion `index` of `offer` (files, then resources) put in place of the `@word`: `@path `, or
 * `@server:uri ` with a template's first `{…}` selected. Null when no mention is being typed.
 */
export function mentionPick(offer: MentionOffer, index: number, text: string): MentionEdit | null {
  const { mention } = offer
  if (!mention) return null
  if (index < offer.files.length) {
    const next = insertMention(text, mention, offer.files[index])
    return { text: next.text, caret: next.caret, end: next.caret }
  }
  const resource = offer.resources[index - offer.files.length]
  const next = insertMention(text, mention, resourceMention(resource))
  const hole = resource.template ? placeholderIn(resourceMention(resource)) : undefined
  const at = mention.start + 1
  if (hole) return { text: next.text, caret: at + hole.start, end: at + hole.end }
  return { text: next.text, caret: next.caret, end: next.caret }
}

/** The project's files for `@` mentions, fetched once per project. */
export function useProjectFiles(repo: string | undefined): string[] {
  const [files, setFiles] = useState<string[]>([])
  useEffect(() => {
    if (!repo) return
    let live = true
    invoke('project/files', { repo }).then(
      (r) => live && setFiles(r.files),
      () => live && setFiles([]),
    )
    return () => {
      live = false
    }
  }, [repo])
  return files
}

/** The `@` suggestions for the box's text and caret: the project's files and the servers' resources. */
export function useMentions(
  text: string,
  caret: number,
  repo: string | undefined,
  resources: readonly McpResourceView[],
): MentionOffer & { count: number } {
  const files = useProjectFiles(repo)
  return useMemo(() => {
    const offer = mentionOffer(text, caret, files, resources)
    return { ...offer, count: offer.files.length + offer.resources.length }
  }, [text, caret, files, resources])
}
