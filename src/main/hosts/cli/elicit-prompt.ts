import readline from 'node:readline/promises'
import type { Readable, Writable } from 'node:stream'
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import type { Elicit, McpElicitation } from '../../mcp/elicitation'
import { formFields, readAnswer } from '../../../shared/mcp-elicitation-form'
import type { OpenUrl } from '../../mcp/oauth/flow'
import { inertText } from '../../../shared/terminalText'

/*
 * A server's question (elicitation) in the CLI: asked on the terminal in every approval policy,
 * `full-auto` included (it is the user's to answer, not the policy's); without a terminal it is
 * declined, and stderr says which server asked what and why it was declined.
 */

export interface TerminalElicitOptions {
  input?: Readable
  output?: Writable
  /** Whether someone can answer (stdin is a terminal). */
  interactive?: boolean
  openUrl?: OpenUrl
}

function declineWithoutTerminal(q: McpElicitation, output: Writable): ElicitResult {
  output.write(
    inertText(
      `stepwise: MCP server "${q.server}" asked: ${q.message}\n  Declined: there is no terminal to answer on. Run in a terminal, or in the app, to answer it.\n`,
    ),
  )
  return { action: 'decline' }
}

export function terminalElicit(opts: TerminalElicitOptions = {}): Elicit {
  const input = opts.input ?? process.stdin
  const output = opts.output ?? process.stderr
  const interactive = opts.interactive ?? Boolean(process.stdin.isTTY)
  return async (q, signal) => {
    if (!interactive) return declineWithoutTerminal(q, output)
    const rl = readline.createInterface({ input, output, terminal: false })
    const ask = (text: string) => rl.question(text, { signal })
    try {
      output.write(inertText(`\nMCP server "${q.server}" asks: ${q.message}\n`))
      if (q.mode === 'url') {
        output.write(inertText(`  It wants you to open: ${q.url ?? ''}\n`))
        const go = (await ask('Open it in your browser? [y]es / [n]o / [c]ancel: ')).trim().toLowerCase()
        if (go.startsWith('c')) return { action: 'cancel' }
        if (!go.startsWith('y')) return { action: 'decline' }
        if (q.url) await opts.openUrl?.(new URL(q.url), q.server)
        return { action: 'accept' }
      }
      const choice = (await ask('Answer it? [a]nswer / [d]ecline / [c]ancel (Enter: answer): '))
        .trim()
        .toLowerCase()
      if (choice.startsWith('d')) return { action: 'decline' }
      if (choice.startsWith('c')) return { action: 'cancel' }
      const content: Record<string, string | number | boolean> = {}
      for (const field of formFields(q.requestedSchema)) {
        const hint = [
          field.choices ? field.choices.map((c, i) => `${i + 1}) ${c.label}`).join('  ') : field.type,
          field.default !== undefined
            ? `Enter: ${String(field.default)}`
            : field.required
              ? 'required'
              : 'Enter: skip',
        ].join('; ')
        if (field.description) output.write(inertText(`  ${field.description}\n`))
        for (;;) {
          const { value, error } = readAnswer(field, await ask(inertText(`  ${field.title} (${hint}): `)))
          if (error) {
            output.write(`    ${error}\n`)
            continue
          }
          // Left empty: the schema's default is filled in by the client (SEP-1034).
          if (value !== undefined) content[field.name] = value
          break
        }
      }
      return { action: 'accept', content }
    } catch (err) {
      if (signal.aborted) return { action: 'cancel' }
      throw err
    } finally {
      rl.close()
    }
  }
}
