import { randomUUID } from 'node:crypto'
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import type { CommandInput, HostMessage, McpElicitationView } from '../../shared/protocol'
import type { Elicit } from '../mcp/elicitation'

/*
 * Servers' questions in the app (docs/mcp.md#elicitation): each waits, as an approval does, until
 * the user answers its card (`mcp/answerElicitation`) or the call that asked is stopped. Every
 * change goes out as `host.mcp-elicitations` with the whole list, so any window shows the same.
 */

interface Pending {
  view: McpElicitationView
  answer(result: ElicitResult): void
}

export class ElicitationDesk {
  private readonly pending = new Map<string, Pending>()

  constructor(private readonly broadcast: (message: HostMessage) => void) {}

  list(): McpElicitationView[] {
    return [...this.pending.values()].map((p) => p.view)
  }

  private changed(): void {
    this.broadcast({ type: 'host.mcp-elicitations', pending: this.list() })
  }

  /** The hook the managers ask through. */
  readonly elicit: Elicit = (question, signal) =>
    new Promise<ElicitResult>((resolve) => {
      const id = randomUUID()
      const done = (result: ElicitResult) => {
        if (!this.pending.delete(id)) return
        signal.removeEventListener('abort', onAbort)
        this.changed()
        resolve(result)
      }
      const onAbort = () => done({ action: 'cancel' })
      if (signal.aborted) return resolve({ action: 'cancel' })
      signal.addEventListener('abort', onAbort)
      const { server, mode, message, requestedSchema, url } = question
      this.pending.set(id, {
        view: {
          id,
          server,
          mode,
          message,
          ...(requestedSchema ? { requestedSchema } : {}),
          ...(url ? { url } : {}),
        },
        answer: done,
      })
      this.changed()
    })

  answer(input: CommandInput<'mcp/answerElicitation'>): McpElicitationView[] {
    const pending = this.pending.get(input.id)
    if (!pending)
      throw new Error('That question is no longer waiting (answered elsewhere, or its call was stopped).')
    if (input.action === 'accept' && pending.view.mode === 'form')
      pending.answer({ action: 'accept', content: input.content ?? {} })
    else pending.answer({ action: input.action })
    return this.list()
  }

  /** The app closes: every question still waiting is called off. */
  cancelAll(): void {
    for (const p of [...this.pending.values()]) p.answer({ action: 'cancel' })
  }
}
