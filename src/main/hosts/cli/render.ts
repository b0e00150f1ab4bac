import { ruleLabel } from '../../../shared/approval-rules'
import pc from 'picocolors'
import type { EventOf, StepwiseEvent } from '../../../shared/protocol'
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

type Colors = ReturnType<typeof pc.createColors>

/** What the human view keeps between events: how it writes, its spinner, and what it names again later. */
interface HumanView {
  color: Colors
  /** Writes one line, stopping the spinner first. */
  print(line: string): void
  spinner: Spinner | undefined
  /** Each running call's name and arguments, to name it again when it finishes. */
  started: Map<string, { name: string; args: unknown }>
  /** Agent files changed without the user approving that change: named again in the end summary. */
  agentFiles: Set<string>
}

export function humanRenderer(out: NodeJS.WriteStream, err: NodeJS.WriteStream): EventRenderer {
  const tty = Boolean(out.isTTY)
  const spinner = err.isTTY ? new Spinner(err) : undefined
  const view: HumanView = {
    color: tty ? pc : pc.createColors(false),
    spinner,
    started: new Map(),
    agentFiles: new Set(),
    print: (line) => {
      spinner?.stop()
      out.write(`${line}\n`)
    },
  }
  return {
    pause: () => spinner?.stop(),
    close: () => spinner?.stop(),
    // What the model, tools and paths put in an event reaches the terminal inert.
    onEvent: (raw) => renderEvent(inertDeep(raw), view),
  }
}

/** Every event type has its case here (the switch is exhaustive); the longer ones have a helper each. */
function renderEvent(event: StepwiseEvent, view: HumanView): void {
  const { color, print, spinner } = view
  switch (event.type) {
    case 'session.started':
      return showSessionStarted(event, view)
    case 'user.message':
      print(`${color.bold('›')} ${event.text}`)
      spinner?.start('thinking…')
      return
    case 'assistant.delta':
      spinner?.start('writing…')
      return
    case 'model.retry':
      print(color.yellow(`↻ retry ${event.attempt} in ${formatDuration(event.delayMs)}: ${event.reason}`))
      spinner?.start('waiting to retry…')
      return
    case 'assistant.message':
      return showAssistantMessage(event, view)
    case 'tool.started':
      view.started.set(event.callId, { name: event.name, args: event.args })
      spinner?.start(`${event.name} ${summarizeArgs(event.args)}`)
      return
    case 'tool.output':
      return
    case 'approval.requested':
      spinner?.stop()
      return
    case 'approval.resolved':
      return showApprovalResolved(event, view)
    case 'tool.finished':
      return showToolFinished(event, view)
    case 'checkpoint.created':
      return showCheckpointCreated(event, view)
    case 'context.compacted':
      print(
        color.dim(
          `  ⇣ context compacted: ${number.format(event.beforeTokens)} → ${number.format(event.afterTokens)} tokens`,
        ),
      )
      return
    case 'checkpoint.restored':
      print(color.cyan(restoredLine(event)))
      return
    case 'session.forked':
      print(color.dim(`  ⑂ forked at step ${event.atSeq} into session ${event.childSessionId}`))
      return
    case 'session.configured':
      return showSessionConfigured(event, view)
    case 'review.finding':
      print(findingLine(event.finding, color))
      return
    case 'verify.finished':
      return showVerifyFinished(event, view)
    case 'toolcall.unparsed':
      print(color.yellow(unparsedLine(event)))
      return
    case 'error':
      print(`${color.red('error:')} ${event.message}${event.hint ? `\n  ${color.dim(event.hint)}` : ''}`)
      return
    case 'session.finished':
      return showSessionFinished(event, view)
    case 'change.proposed':
      // Each change is asked on its own as it comes (approval.requested).
      return
    case 'turn.started':
    case 'turn.finished':
      // The user's message and the session.finished line already show where a turn starts and ends.
      return
    default: {
      const unreachable: never = event
      return unreachable
    }
  }
}

function showSessionStarted(event: EventOf<'session.started'>, { color, print }: HumanView): void {
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
}

/** The reply's text, then its step, tokens, time, context share and tool calls on a dim line. */
function showAssistantMessage(event: EventOf<'assistant.message'>, { color, print }: HumanView): void {
  const text = event.text.trim()
  if (text) print(`${color.green('●')} ${text}`)
  print(
    color.dim(
      `  step ${event.step} · ${number.format(event.usage.inputTokens)} in / ${number.format(event.usage.outputTokens)} out · ${formatDuration(event.durationMs)}${event.context ? ` · context ${contextShare(event.context)}` : ''}${event.toolCalls.length ? ` · ${event.toolCalls.length} tool call${event.toolCalls.length > 1 ? 's' : ''}` : ''}`,
    ),
  )
}

/** Rejections and edits are shown; an approval by a rule names the rule; a plain approval shows nothing. */
function showApprovalResolved(event: EventOf<'approval.resolved'>, { color, print }: HumanView): void {
  if (event.decision === 'reject')
    print(color.yellow(`  ✗ rejected${event.reason ? `: ${event.reason}` : ''}`))
  else if (event.decision === 'edited') print(color.cyan('  ✎ accepted with your edits'))
  else if (event.rule)
    print(
      color.dim(
        `  ${event.by === 'user' ? `always allowed for this ${event.rule.scope}` : `allowed by the ${event.rule.scope} rule`}: ${ruleLabel(event.rule.pattern)}`,
      ),
    )
}

/** The call named with the arguments it started with: its time when it worked, its error when not. */
function showToolFinished(event: EventOf<'tool.finished'>, view: HumanView): void {
  const { color, print } = view
  const call = view.started.get(event.callId)
  const summary = summarizeArgs(call?.args)
  const head = `${event.name}${summary ? ` ${summary}` : ''}`
  if (event.ok) print(`  ${color.green('✓')} ${head} ${color.dim(formatDuration(event.durationMs))}`)
  else {
    const error = event.result.error === undefined ? 'failed' : String(event.result.error)
    print(`  ${color.red('✗')} ${head} ${color.dim('—')} ${truncate(error, 160)}`)
  }
  view.spinner?.start('thinking…')
}

/** The checkpoint's files, and a warning for agent files changed without asking (kept for the summary). */
function showCheckpointCreated(event: EventOf<'checkpoint.created'>, view: HumanView): void {
  const { color, print } = view
  print(
    color.dim(
      `  ◆ checkpoint ${event.snapshotId}: ${event.paths.join(', ') || 'no file changed'}${event.ignored?.length ? `; under ignored folders: ${event.ignored.map((c) => `${c.path} (${c.status})`).join(', ')}` : ''}`,
    ),
  )
  for (const file of event.agentFiles ?? []) view.agentFiles.add(file)
  if (event.agentFiles)
    print(color.yellow(`  ⚠ changed without asking, and it instructs agents: ${event.agentFiles.join(', ')}`))
}

function restoredLine(event: EventOf<'checkpoint.restored'>): string {
  return `  ↺ ${event.kind}: files as at checkpoint ${event.snapshotId}${event.toSeq !== undefined ? ` (step ${event.toSeq})` : ''}: ${event.paths.join(', ') || 'no file changed'} · the present is saved as checkpoint ${event.savedSnapshotId}`
}

function showSessionConfigured(event: EventOf<'session.configured'>, { color, print }: HumanView): void {
  if (event.provider || event.model)
    print(
      color.dim(`  ⇄ model ${[event.provider, event.model].filter(Boolean).join(':')} from the next turn`),
    )
  if (event.approvalPolicy) print(color.dim(`  approval policy: ${event.approvalPolicy}`))
}

/** A review finding, its severity coloured by weight. */
function findingLine(f: EventOf<'review.finding'>['finding'], color: Colors): string {
  const sev =
    f.severity === 'high'
      ? color.red(f.severity)
      : f.severity === 'medium'
        ? color.yellow(f.severity)
        : color.dim(f.severity)
  return `  ${sev} ${f.category} ${f.file}:${f.line} ${truncate(f.message, 140)}`
}

/** A pass in one line; a failing round with its first five failures beneath it. */
function showVerifyFinished(event: EventOf<'verify.finished'>, { color, print }: HumanView): void {
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
}

function unparsedLine(event: EventOf<'toolcall.unparsed'>): string {
  return `⚠ a tool call (${event.family} format) could not be read: ${truncate(event.problem, 200)}${event.repair ? ' — asking the model to write it again' : ' — nothing was run'}`
}

/** How the session ended and what it cost, then the agent files changed without asking, if any. */
function showSessionFinished(event: EventOf<'session.finished'>, view: HumanView): void {
  const { color, print } = view
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
  if (view.agentFiles.size > 0)
    print(
      color.yellow(
        `⚠ files that instruct agents or other tools changed without asking: ${[...view.agentFiles].join(', ')} — review them before the next session or tool reads them.`,
      ),
    )
}
