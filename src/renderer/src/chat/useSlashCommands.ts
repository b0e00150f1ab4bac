import { useMemo } from 'react'
import type { McpPromptView } from '../../../shared/protocol'
import { needsArg, type PaletteCommand } from '../palette/commands'
import { matchPrompts, needsPromptArgs } from './mcpOffers'
import { matchSlash, slashQuery } from './slash'

/**
 * The message box's `/` completion: the app's commands (run in the app, never sent) and the MCP
 * servers' prompts (sent; the core puts the prompt's text in). What a pick does is worked out
 * here, purely (`slashPick`); the box carries it out.
 */

/** What is offered after `/`: the app's commands first, then the servers' prompts. */
export interface SlashOffer {
  /** The word after `/` being completed, or null when the caret is not in it. */
  query: string | null
  commands: PaletteCommand[]
  prompts: McpPromptView[]
}

export function slashOffer(
  text: string,
  caret: number,
  commands: readonly PaletteCommand[],
  prompts: readonly McpPromptView[],
): SlashOffer {
  const query = slashQuery(text, caret)
  if (query === null) return { query, commands: [], prompts: [] }
  return { query, commands: matchSlash(commands, query), prompts: matchPrompts(prompts, query) }
}

/**
 * What picking a suggestion does: run one of the app's commands (`typed` goes to the history),
 * send a server prompt as the message, or complete the box's text to type the argument.
 */
export type SlashOutcome =
  | { kind: 'command'; command: PaletteCommand; arg: string; typed: string }
  | { kind: 'send'; text: string }
  | { kind: 'complete'; text: string }

/**
 * Suggestion `index` of `offer` (commands, then prompts) for the box's `text`. Tab (`complete`)
 * completes the name; Enter (`run`) runs it, unless a required argument is still to type.
 */
export function slashPick(
  offer: SlashOffer,
  index: number,
  text: string,
  how: 'complete' | 'run',
): SlashOutcome {
  if (index < offer.commands.length) {
    const command = offer.commands[index]
    const rest = text.replace(/^\/[a-z0-9-]*/i, '').trim()
    if (how === 'run' && (!needsArg(command) || rest))
      return { kind: 'command', command, arg: rest, typed: `/${command.slash}` }
    return { kind: 'complete', text: `/${command.slash} ${rest}` }
  }
  const prompt = offer.prompts[index - offer.commands.length]
  const rest = text.replace(/^\/\S*/, '').trim()
  if (how === 'run' && (!needsPromptArgs(prompt) || rest))
    return { kind: 'send', text: `/${prompt.command}${rest ? ` ${rest}` : ''}` }
  return { kind: 'complete', text: `/${prompt.command} ${rest}` }
}

/** The `/` suggestions for the box's text and caret, recomputed only when they change. */
export function useSlashCommands(
  text: string,
  caret: number,
  commands: readonly PaletteCommand[],
  prompts: readonly McpPromptView[],
): SlashOffer & { count: number } {
  return useMemo(() => {
    const offer = slashOffer(text, caret, commands, prompts)
    return { ...offer, count: offer.commands.length + offer.prompts.length }
  }, [text, caret, commands, prompts])
}
