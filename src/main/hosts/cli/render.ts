import { ruleLabel } from '../../../shared/approval-rules'
import pc from 'picocolors'
import type { StepwiseEvent } from '../../../shared/protocol'
import { inertDeep } from '../../../shared/terminalText'
import { isRecord } from '../../../shared/records'

/** Output of `stepwise edit`: JSON lines, or a human view with a spinner on a TTY. */
export interface EventRenderer {
  onEvent(event: StepwiseEvent): void
  /** Stops the spinner (before prompting the user) — it restarts on the next event that needs it. */
  pause(): void
  close(): void
}

export function jsonRenderer(out: NodeJS.WritableStream): EventRenderer {
  return {
    onEvent: (event) => void out.write(`${JSON.stringify(event)}\n`),
    pause: () => {},
    close: () => {},
  }
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

class Spinner {
  private timer: NodeJS.Timeout | undefined
  private frame = 0
  private label = ''
  constructor(private readonly out: NodeJS.WriteStream) {}

  start(label: string): void {
    this.label = label
    if (this.timer) return
    this.timer = setInterval(() => this.draw(), 80)
    this.timer.unref()
    this.draw()
  }

  private draw(): void {
    this.frame = (this.frame + 1) % FRAMES.length
    this.out.write(`\r${pc.cyan(FRAMES[this.frame])} ${pc.dim(this.label)}\x1b[K`)
  }

  stop(): void {
    if (!this.timer) return
    clearInterval(this.timer)
    this.timer = undefined
    this.out.write('\r\x1b[K')
  }
}

/** A short, single-line view of a tool's arguments: the path, query or command it works on. */
export function summarizeArgs(args: unknown): string {
  if (typeof args === 'string') return truncate(args, 60)
  if (!isRecord(args)) return ''
  const a = args
  for (const key of ['path', 'query', 'command', 'prefix', 'glob', 'ref', 'symbol', 'message']) {
    if (typeof a[key] === 'string' && a[key]) {
      let text = truncate(String(a[key]), 70)
      if (key === 'path' && typeof a.start_line !== 'undefined')
        text += `:${String(a.start_line)}-${String(a.end_line ?? '')}`
      return text
    }
  }
  return ''
}

function truncate(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/** `12% of 32k`: the share of the model's window the last request used; `~12%` when it is our estimate. */
export function contextShare(context: {
  usedTokens: number
  windowTokens: number
  promptSource?: 'reported' | 'estimated'
}): string {
  const pct = Math.round((100 * context.usedTokens) / context.windowTokens)
  const window =
    context.windowTokens >= 1000
      ? `${Math.round(context.windowTokens / 1000)}k`
      : String(context.windowTokens)
  return `${context.promptSource === 'estimated' ? '~' : ''}${pct}% of ${window}`
}

export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`
}

const number = new Intl.NumberFormat('en-US')

export function humanRenderer(out: NodeJS.WriteStream, err: NodeJS.WriteStream): EventRenderer {
  const tty = Boolean(out.isTTY)
  const color = tty ? pc : pc.createColors(false)
  const spinner = err.isTTY ? new Spinner(err) : undefined
  const started = new Map<string, { name: string; args: unknown }>()
  /** Agent files changed without the user approving that change: named again in the end summary. */
  const agentFiles = new Set<string>()
  const print = (line: string): void => {
    spinner?.stop()
    out.write(`${line}\n`)
  }

  return {
    pause: () => spinner?.stop(),
    close: () => spinner?.stop(),
    onEvent(raw) {
      // What the model, tools and paths put in an event reaches the terminal inert.
      const event = inertDeep(raw)
      switch (event.type) {
        case 'session.started':
          print(
            color.dim(
              `stepwise · session ${event.sessionId} · ${event.provider}/${event.model} · approve ${event.approvalPolicy}`,
            ),
          )
          for (const changed of event.ruleFilesChanged ?? [])
            print(
              color.yellow(
                `⚠ ${changed.path} changed in session ${changed.sessionId}: read it before trusting it (it goes into the system prompt).`,
              ),
            )
          break
        case 'user.message':
          print(`${color.bold('›')} ${event.text}`)
          spinner?.start('thinking…')
          break
        case 'assistant.delta':
          spinner?.start('writing…')
          break
        case 'model.retry':
          print(color.yellow(`↻ retry ${event.attempt} in ${formatDuration(event.delayMs)}: ${event.reason}`))
          spinner?.start('waiting to retry…')
          break
        case 'assistant.message': {
          const text = event.text.trim()
          if (text) print(`${color.green('●')} ${text}`)
          print(
            color.dim(
              `  step ${event.step} · ${number.format(event.usage.inputTokens)} in / ${number.format(event.usage.outputTokens)} out · ${formatDuration(event.durationMs)}${event.context ? ` · context ${contextShare(event.context)}` : ''}${event.toolCalls.length ? ` · ${event.toolCalls.length} tool call${event.toolCalls.length > 1 ? 's' : ''}` : ''}`,
            ),
          )
          break
        }
        case 'tool.started':
          started.set(event.callId, { name: event.name, args: event.args })
          spinner?.start(`${event.name} ${summarizeArgs(event.args)}`)
          break
        case 'tool.output':
          break
        case 'approval.requested':
          spinner?.stop()
          break
        case 'approval.resolved':
          if (event.decision === 'reject')
            print(color.yellow(`  ✗ rejected${event.reason ? `: ${event.reason}` : ''}`))
          else if (event.decision === 'edited') print(color.cyan('  ✎ accepted with your edits'))
          else if (event.rule)
            print(
              color.dim(
                `  ${event.by === 'user' ? `always allowed for this ${event.rule.scope}` : `allowed by the ${event.rule.scope} rule`}: ${ruleLabel(event.rule.pattern)}`,
              ),
            )
          break
        case 'tool.finished': {
          const call = started.get(event.callId)
          const summary = summarizeArgs(call?.args)
          const head = `${event.name}${summary ? ` ${summary}` : ''}`
          if (event.ok) print(`  ${color.green('✓')} ${head} ${color.dim(formatDuration(event.durationMs))}`)
          else {
            const error = event.result.error === undefined ? 'failed' : String(event.result.error)
            print(`  ${color.red('✗')} ${head} ${color.dim('—')} ${truncate(error, 160)}`)
          }
          spinner?.start('thinking…')
          break
        }
        case 'checkpoint.created':
          print(
            color.dim(
              `  ◆ checkpoint ${event.snapshotId}: ${event.paths.join(', ') || 'no file changed'}${event.ignored?.length ? `; under ignored folders: ${event.ignored.map((c) => `${c.path} (${c.status})`).join(', ')}` : ''}`,
            ),
          )
          for (const file of event.agentFiles ?? []) agentFiles.add(file)
          if (event.agentFiles)
            print(
              color.yellow(
                `  ⚠ changed without asking, and it instructs agents: ${event.agentFiles.join(', ')}`,
              ),
            )
          break
        case 'context.compacted':
          print(
            color.dim(
              `  ⇣ context compacted: ${number.format(event.beforeTokens)} → ${number.format(event.afterTokens)} tokens`,
            ),
          )
          break
        case 'checkpoint.restored':
          print(
            color.cyan(
              `  ↺ ${event.kind}: files as at checkpoint ${event.snapshotId}${event.toSeq !== undefined ? ` (step ${event.toSeq})` : ''}: ${event.paths.join(', ') || 'no file changed'} · the present is saved as checkpoint ${event.savedSnapshotId}`,
            ),
          )
          break
        case 'session.forked':
          print(color.dim(`  ⑂ forked at step ${event.atSeq} into session ${event.childSessionId}`))
          break
        case 'session.configured':
          if (event.provider || event.model)
            print(
              color.dim(
                `  ⇄ model ${[event.provider, event.model].filter(Boolean).join(':')} from the next turn`,
              ),
            )
          if (event.approvalPolicy) print(color.dim(`  approval policy: ${event.approvalPolicy}`))
          break
        case 'review.finding': {
          const f = event.finding
          const sev =
            f.severity === 'high'
              ? color.red(f.severity)
              : f.severity === 'medium'
                ? color.yellow(f.severity)
                : color.dim(f.severity)
          print(`  ${sev} ${f.category} ${f.file}:${f.line} ${truncate(f.message, 140)}`)
          break
        }
        case 'verify.finished':
          if (event.passed) print(color.green(`  ✓ build and tests pass (round ${event.round})`))
          else
            print(
              color.yellow(
                `  ✗ verify round ${event.round}/${event.maxRounds}: ${event.failures.length} failing${
                  event.failures.length
                    ? `\n    ${event.failures
                        .slice(0, 5)
                        .map((f) => truncate(f, 140))
                        .join('\n    ')}`
                    : ''
                }`,
              ),
            )
          break
        case 'toolcall.unparsed':
          print(
            color.yellow(
              `⚠ a tool call (${event.family} format) could not be read: ${truncate(event.problem, 200)}${event.repair ? ' — asking the model to write it again' : ' — nothing was run'}`,
            ),
          )
          break
        case 'error':
          print(`${color.red('error:')} ${event.message}${event.hint ? `\n  ${color.dim(event.hint)}` : ''}`)
          break
        case 'session.finished': {
          const label: Record<typeof event.reason, string> = {
            done: color.green('done'),
            'step-limit': color.yellow('stopped at the step limit'),
            error: color.red('failed'),
            interrupted: color.yellow('interrupted'),
          }
          print(
            `${label[event.reason]} · ${event.steps} step${event.steps === 1 ? '' : 's'} · ${number.format(event.usage.inputTokens)} in / ${number.format(event.usage.outputTokens)} out tokens · ${formatDuration(event.durationMs)}`,
          )
          if (event.reason === 'step-limit' && event.message) print(color.dim(event.message))
          if (agentFiles.size > 0)
            print(
              color.yellow(
                `⚠ files that instruct agents or other tools changed without asking: ${[...agentFiles].join(', ')} — review them before the next session or tool reads them.`,
              ),
            )
          break
        }
        case 'change.proposed':
          // Each change is asked on its own as it comes (approval.requested).
          break
        case 'turn.started':
        case 'turn.finished':
          // The user's message and the session.finished line already show where a turn starts and ends.
          break
        default: {
          const unreachable: never = event
          return unreachable
        }
      }
    },
  }
}
