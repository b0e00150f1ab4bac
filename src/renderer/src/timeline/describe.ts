import type { TimelineStep, ToolStep } from '../../../shared/reducer'
import { choiceLabel } from '../models/format'
import { formatDuration, formatTokens, truncate } from './format'
import { timesText, toolOutcome } from './outcome'
import { summarizeArgs } from './summary'
import { isRecord } from '../../../shared/records'

/*
 * The plain text of a timeline row, computed from the step alone. Rows render many
 * times while a session streams, so this stays cheap: no markdown, previews cut early.
 */

export const PREVIEW_CHARS = 200

export type RowStatus = 'running' | 'waiting' | 'ok' | 'error' | 'rejected' | 'streaming' | 'interrupted'

export interface RowText {
  /** The first line: what the step is. */
  title: string
  /** A second, muted line: numbers, durations, state. */
  meta?: string
  /** Up to two lines of content (message text, hint, failures). */
  preview?: string
  /** For messages: the head of the text, shown as markdown instead of `preview`. */
  markdown?: string
  /** The markdown is the model's answer, shown whole (never clipped). */
  whole?: boolean
  /** Title, preview and meta fit on one line (a tool call, a short note before one). */
  inline?: boolean
}

/** What `data-status` says about a row. */
export function stepStatus(step: TimelineStep): RowStatus {
  switch (step.kind) {
    case 'tool':
      return step.status
    case 'model':
      return step.status
    case 'error':
      return 'error'
    default:
      return 'ok'
  }
}

/** The first `lines` non-blank lines of a text, cut to `max` characters. */
export function previewLines(text: string, lines: number, max = PREVIEW_CHARS): string {
  // Cut before splitting: a model's message can be long and this runs on every delta.
  const head = text.slice(0, max * 2)
  const kept = head
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter((l) => l !== '')
    .slice(0, lines)
    .join('\n')
  return kept.length > max || text.length > head.length ? cut(kept, max) : kept
}

/**
 * The head of a message to render as markdown in a row: whole lines up to `max` characters, with
 * a code fence the cut left open closed again (else the rest of the row would be code).
 */
export function markdownHead(text: string, max = 600): string {
  let head = text.length > max ? text.slice(0, max) : text
  if (head.length < text.length) {
    const lastBreak = head.lastIndexOf('\n')
    head = `${(lastBreak > max / 2 ? head.slice(0, lastBreak) : head).trimEnd()}…`
  }
  const fences = head.match(/^\s*(```|~~~)/gm)?.length ?? 0
  return fences % 2 === 1 ? `${head}\n\`\`\`` : head.trim()
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : `${text}…`
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`
}

const RESTORE_LABELS = { undo: 'Undo', rewind: 'Rewind', fork: 'Fork' } as const

const APPROVAL_TEXT: Record<string, string> = {
  pending: 'waiting for you',
  accept: 'approved',
  reject: 'rejected',
  edited: 'approved with edits',
  partial: 'partly approved',
  regenerate: 'sent back to redo',
  always: 'always allowed',
}

/** "waiting for you", "approved", "rejected by policy", … */
export function approvalText(approval: { decision: string; by: string; rule?: { scope: string } }): string {
  const text = APPROVAL_TEXT[approval.decision] ?? approval.decision
  if (approval.decision === 'pending' || approval.by !== 'policy') return text
  return approval.rule ? `${text} by the ${approval.rule.scope} rule` : `${text} by policy`
}

/**
 * The server and tool of an MCP call, from what its approval showed or else from the name the
 * model used (`mcp__SERVER__TOOL`; server names have no `__`, tool names may), or null.
 */
export function mcpToolOf(step: ToolStep): { server: string; tool: string } | null {
  if (step.mcp) return { server: step.mcp.server, tool: step.mcp.tool }
  return splitMcpName(step.name)
}

/** `mcp__SERVER__TOOL` split at its first `__` after the prefix; null for any other name. */
export function splitMcpName(name: string): { server: string; tool: string } | null {
  const m = /^mcp__(.+?)__(.+)$/.exec(name)
  return m ? { server: m[1], tool: m[2] } : null
}

/** How a tool is named to the user: its own name, or "SERVER · TOOL" for an MCP tool. */
export function displayToolName(name: string): string {
  const mcp = splitMcpName(name)
  return mcp ? `${mcp.server} · ${mcp.tool}` : name
}

/** A tool row's title: the tool's name, or "SERVER · TOOL" for an MCP tool. */
export function toolTitle(step: ToolStep): string {
  const mcp = mcpToolOf(step)
  return mcp ? `${mcp.server} · ${mcp.tool}` : step.name
}

/** What the call's folded checkpoint adds: files a command changed, agent files changed unasked. */
function checkpointText(step: ToolStep): string | undefined {
  const cp = step.checkpoint
  if (!cp) return undefined
  // Changed unasked (full-auto, or by a command): what the next agent or tool will obey.
  if (cp.agentFiles) return `⚠ instructs agents, changed without asking: ${cp.agentFiles.join(', ')}`
  const path = isRecord(step.args) ? step.args.path : undefined
  // A file tool's checkpoint holds the file its row already names.
  if (cp.paths.length === 0 || (cp.paths.length === 1 && cp.paths[0] === path)) return undefined
  return `${plural(cp.paths.length, 'file')} changed`
}

function toolMeta(step: ToolStep): string | undefined {
  const parts: string[] = []
  const images = step.attachments?.length ?? 0
  if (images > 0) parts.push(plural(images, 'image'))
  const outcome = toolOutcome(step)
  if (outcome) parts.push(outcome)
  const changed = checkpointText(step)
  if (changed) parts.push(changed)
  // A rejection or denial says so in its outcome; an approval is worth saying when asked for.
  // Announced with the other changes of its step: asked once the ones before it are answered.
  if (step.proposed) parts.push('proposed · asked in turn')
  else if (step.approval && step.status !== 'rejected') parts.push(approvalText(step.approval))
  const times = timesText(step)
  if (times) parts.push(times)
  return parts.length > 0 ? parts.join(' · ') : undefined
}

function modelMeta(step: Extract<TimelineStep, { kind: 'model' }>): string | undefined {
  const parts: string[] = []
  if (step.model) parts.push(step.model)
  if (step.usage) {
    parts.push(`${formatTokens(step.usage.inputTokens)} in / ${formatTokens(step.usage.outputTokens)} out`)
  }
  if (step.durationMs !== undefined) parts.push(formatDuration(step.durationMs))
  if (step.toolCalls.length > 0) parts.push(plural(step.toolCalls.length, 'tool call'))
  if (step.retries > 0) parts.push(`retried ${step.retries}×`)
  if (step.status === 'interrupted') parts.push('interrupted')
  return parts.length > 0 ? parts.join(' · ') : undefined
}

const FINISH_LABELS: Record<Extract<TimelineStep, { kind: 'finish' }>['reason'], string> = {
  done: 'Finished',
  interrupted: 'Stopped by you',
  'step-limit': 'Stopped at the step limit',
  error: 'Stopped on an error',
}

type StepOf<K extends TimelineStep['kind']> = Extract<TimelineStep, { kind: K }>

function describeModel(step: StepOf<'model'>): RowText {
  // A step that calls no tool is the model's answer to the user: shown whole, never clipped.
  const answer = step.toolCalls.length === 0 && step.status !== 'streaming'
  // A short note before a tool call ("Reading the form") sits on the row's one line.
  const note = step.text.trim()
  if (!answer && note !== '' && !note.includes('\n') && note.length <= 160 && !/[`*_[#]/.test(note))
    return { title: `Model · reply ${step.step}`, meta: modelMeta(step), preview: note, inline: true }
  return {
    title: `Model · reply ${step.step}`,
    meta: modelMeta(step),
    preview: previewLines(step.text, 2) || undefined,
    markdown: (answer ? step.text.trim() : markdownHead(step.text)) || undefined,
    ...(answer ? { whole: true } : {}),
  }
}

function describeFinish(step: StepOf<'finish'>): RowText {
  return {
    title: FINISH_LABELS[step.reason],
    meta: [
      plural(step.modelSteps, 'model reply', 'model replies'),
      `${formatTokens(step.usage.inputTokens)} in / ${formatTokens(step.usage.outputTokens)} out`,
      formatDuration(step.durationMs),
    ].join(' · '),
    // An error's words are in its own row just above: the end row does not repeat them.
    preview:
      step.reason === 'done' || step.reason === 'error' || !step.message
        ? undefined
        : previewLines(step.message, 2),
  }
}

export function describeStep(step: TimelineStep): RowText {
  switch (step.kind) {
    case 'user':
      return {
        title: 'You',
        ...(step.queued ? { meta: 'sent while the agent worked' } : {}),
        preview: previewLines(step.text, 2),
        markdown: markdownHead(step.text),
      }
    case 'model':
      return describeModel(step)
    case 'tool':
      return {
        title: toolTitle(step),
        meta: toolMeta(step),
        preview: summarizeArgs(step.name, step.args) || undefined,
      }
    case 'checkpoint':
      return {
        title: `Checkpoint · ${plural(step.paths.length, 'file')}`,
        // Changed unasked (full-auto, or by a command): what the next agent or tool will obey.
        ...(step.agentFiles
          ? { meta: `⚠ instructs agents, changed without asking: ${step.agentFiles.join(', ')}` }
          : {}),
      }
    case 'compaction': {
      const [before, after] = [formatTokens(step.beforeTokens), formatTokens(step.afterTokens)]
      const how = step.onRequest ? ' on request' : ''
      return { title: `Context compacted${how} ${before} → ${after} tokens` }
    }
    case 'error':
      return {
        title: truncate(step.message, PREVIEW_CHARS),
        meta: step.code,
        preview: step.hint ? previewLines(step.hint, 2) : undefined,
      }
    case 'finding':
      return {
        title: `${step.finding.severity} · ${truncate(step.finding.message.split('\n')[0], PREVIEW_CHARS)}`,
        meta: `${step.finding.category} · ${step.finding.file}:${step.finding.line}`,
      }
    case 'restore':
      return { title: `${RESTORE_LABELS[step.restore]} restored ${plural(step.paths.length, 'file')}` }
    case 'switch':
      return {
        title: `Model → ${choiceLabel(step.provider, step.model)}`,
        meta: step.from
          ? `was ${choiceLabel(step.from.provider, step.from.model)} · from the next turn`
          : 'from the next turn',
      }
    case 'fork':
      return {
        title: `Forked to ${step.childSessionId.slice(0, 8)}`,
        meta: step.atStep === undefined ? `at event ${step.atSeq}` : `at step ${step.atStep}`,
      }
    case 'finish':
      return describeFinish(step)
    case 'unparsed-call':
      return {
        title: 'Tool call not understood',
        meta: `${step.family} format · ${step.repair ? 'asked the model to write it again' : 'nothing was run'}`,
        preview: previewLines(step.problem, 2),
      }
    case 'verify':
      return {
        title: `Checks ${step.passed ? 'passed' : 'failed'} (round ${step.round} of ${step.maxRounds})`,
        preview: step.failures.length > 0 ? previewLines(step.failures.join('\n'), 2) : undefined,
      }
  }
}
