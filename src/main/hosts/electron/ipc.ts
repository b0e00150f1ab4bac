import { ipcMain } from 'electron'
import { z } from 'zod'
import { isCommandName, parseCommand, type CommandName, type CommandOutput } from '../../../shared/protocol'
import { INVOKE_CHANNEL, type InvokeReply } from './channels'

// The whole ipcMain binding of the desktop app. The renderer is untrusted: every command is checked
// against the protocol before anything runs.

type Handlers = { [C in CommandName]?: (input: unknown) => Promise<CommandOutput<C>> }

/** What this build can answer. The desktop UI and its wiring to the core come later. */
const handlers: Handlers = {
  'session/list': async () => ({ sessions: [] }),
}

/** Validates and answers one command; never throws, so the renderer always gets a readable reply. */
export async function answerCommand(command: unknown, input: unknown): Promise<InvokeReply> {
  if (typeof command !== 'string' || !isCommandName(command)) {
    return { ok: false, error: `Unknown command ${JSON.stringify(command)}.` }
  }
  let parsed: unknown
  try {
    parsed = parseCommand(command, input)
  } catch (error) {
    const detail = error instanceof z.ZodError ? z.prettifyError(error) : String(error)
    return { ok: false, error: `Invalid input for ${command}: ${detail}` }
  }
  const handler = handlers[command]
  if (!handler) {
    return {
      ok: false,
      error: `${command} is not available in this build yet; the desktop UI is in progress. Use the CLI: stepwise --help`,
    }
  }
  try {
    return { ok: true, output: await handler(parsed) }
  } catch (error) {
    console.error(`[stepwise] ${command} failed`, error)
    return {
      ok: false,
      error: `${command} failed: ${error instanceof Error ? error.message : String(error)}`,
    }
  }
}

/** Call once, after `app` is ready. */
export function bindIpc(): void {
  ipcMain.handle(INVOKE_CHANNEL, (_event, command: unknown, input: unknown) => answerCommand(command, input))
}
