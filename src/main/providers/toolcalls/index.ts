import type { ToolCall } from '../../../shared/protocol'
import type { ToolSpec } from '../../../shared/tool-spec'
import { newCallId } from '../ids'
import type { ModelTurn, ToolCallRepair } from '../types'
import { FAMILIES } from './families'
import { maskReasoning } from './reasoning'
import {
  blankRegions,
  codeRegions,
  enclosingRegion,
  shownAsExample,
  isWholeAnswer,
  LEFTOVER_TOKENS,
  type Region,
} from './regions'
import { checkCall, type CheckedCall } from './schema-check'
import { maskToolOutputs, otherTurnStart } from './turns'
import type { Span, ToolCallFamily } from './types'

/*
 * The text tool-call pipeline: tool calls that open models write as text, in any of
 * the format families in `families/`, turned into real calls — but only the calls
 * the model made. Reasoning is blanked first; calls shown as examples (code in
 * prose, JSON inside an explanation) stay text; every call must name a tool offered
 * in this request and fit its schema. Markup that is plainly meant as a call but
 * cannot be read is reported, so the agent loop can ask the model once to repair it.
 */

/** Markup that looked like a call and could not be used. */
export interface UnparsedCall {
  start: number
  end: number
  problem: string
  /** The family whose markup it was, for the format to ask for. */
  family: string
}

export interface TextToolCalls {
  calls: ToolCall[]
  /** The answer with the executed calls removed; exactly the model's text when no call runs. */
  text: string
  broken: UnparsedCall[]
  /**
   * Well-formed calls to offered tools that did not run because the answer is more than the
   * calls (bare JSON inside prose): the model may have meant them, so it is asked once.
   * Present only when there are such calls and nothing ran.
   */
  inProse?: InProseCall[]
}

/** A well-formed call written inside prose, as the model wrote it. */
export interface InProseCall {
  start: number
  end: number
  tools: string[]
  /** The call's text as written, for the model to send again on its own. */
  written: string
}

const MAX_BROKEN = 20

/** A span that may act: the region it takes (itself, or the fence around it) and whether the act rule applies. */
interface Acting {
  span: Candidate
  taken: Region
  needsWholeAnswer: boolean
}

interface Candidate extends Span {
  family: string
  checked: CheckedCall[]
  valid: boolean
}

export function readToolCalls(
  text: string,
  tools: readonly ToolSpec[],
  families: readonly ToolCallFamily[] = FAMILIES,
): TextToolCalls {
  // Reasoning and tool output the model wrote are never calls.
  const unmasked = maskToolOutputs(maskReasoning(text))
  const eos = trailingEos(unmasked)
  const masked = eos < 0 ? unmasked : unmasked.slice(0, eos) + unmasked.slice(eos).replace(/[^\n]/g, ' ')
  const { candidates, familyBroken, callless } = collectCandidates(masked, tools, families)

  // Code regions are found with markup blanked, so a fence inside a call's argument
  // (a README written through <parameter=content>) cannot open a region around the next call.
  const regions = codeRegions(
    blankRegions(
      masked,
      candidates.filter((c) => c.kind === 'markup'),
    ),
  )
  const chosen = resolveOverlaps(candidates)

  // Where each chosen span would act, and which ones still have to pass the act rule.
  const acting = actingSpans(chosen, regions, { masked, text })
  const strict = acting.filter((a) => a.needsWholeAnswer)
  const whole =
    strict.length > 0 &&
    isWholeAnswer(
      masked,
      acting.map((a) => a.taken),
    )
  // Well-formed calls held back only by the act rule (the answer is more than them), written
  // in the prose itself: a fenced block inside an explanation is documentation, not asked about.
  const inProse: InProseCall[] = whole
    ? []
    : strict
        .filter((a) => a.span.valid && a.taken === a.span && !isFence(masked, a.span))
        .map(({ span, taken }) => ({
          start: taken.start,
          end: taken.end,
          tools: span.checked.flatMap((c) => (c.ok ? [c.name] : [])),
          written: text.slice(taken.start, taken.end).trim(),
        }))
  const { acts, end } = cutAtImaginedResult(
    masked,
    acting.filter((a) => !a.needsWholeAnswer || whole),
    otherTurnStart(masked, regions),
  )

  const calls: ToolCall[] = []
  const removed: Region[] = []
  const broken: UnparsedCall[] = []
  for (const { span, taken } of acts) {
    if (span.valid) {
      for (const c of span.checked) {
        if (c.ok) calls.push({ id: newCallId(), name: c.name, arguments: JSON.stringify(c.arguments) })
      }
      removed.push(taken)
    } else if (span.kind === 'markup') {
      const problems = span.checked.flatMap((c) => (c.ok ? [] : [c.problem]))
      broken.push({ start: span.start, end: span.end, family: span.family, problem: problems.join('; ') })
    }
  }
  // A few problems are enough for the repair message; an answer full of broken markup must stay cheap.
  for (const b of familyBroken.slice(0, MAX_BROKEN)) {
    // Only what acts hides unreadable markup: bare JSON that stays text (it failed its
    // checks, or the answer is more than the call) must not silence a broken block around it.
    const overlapsActing = acts.some(({ taken: t }) => b.start < t.end && b.end > t.start)
    const inCode = regions.some((r) => r.start <= b.start && b.start < r.end && !isCallFence(masked, r, b))
    const dup = broken.some((o) => b.start < o.end && b.end > o.start)
    if (!overlapsActing && !inCode && !dup && !shownAsExample(masked, b)) broken.push(b)
  }
  broken.sort((a, b) => a.start - b.start)

  if (calls.length === 0)
    return inProse.length > 0 ? { calls, text, broken, inProse } : { calls, text, broken }
  const protocol = callless.filter((r) => !regions.some((c) => c.start <= r.start && r.start < c.end))
  const tail = eos < 0 ? [] : [{ start: eos, end: text.length }]
  return {
    calls,
    text: withoutRegions(text, masked, end, [...removed, ...protocol, ...tail]),
    broken,
  }
}

/**
 * The pipeline on a finished turn that has text and no native calls. Calls found
 * become the turn's calls; unreadable call markup with no call becomes a repair request.
 */
export function applyTextToolCalls(
  turn: ModelTurn,
  tools: readonly ToolSpec[],
  families: readonly ToolCallFamily[] = FAMILIES,
): ModelTurn {
  if (turn.toolCalls.length > 0 || turn.text.trim() === '' || tools.length === 0) return turn
  const found = readToolCalls(turn.text, tools, families)
  if (found.calls.length > 0)
    return { ...turn, text: found.text, toolCalls: found.calls, textToolCalls: true }
  if (found.broken.length > 0) return { ...turn, toolCallRepair: repairFor(found.broken, families) }
  if (found.inProse) return { ...turn, toolCallRepair: inProseRepair(found.inProse) }
  return turn
}

/** Calls written inside prose: not run, not dropped — the model is asked whether it meant them. */
export function inProseRepair(found: readonly InProseCall[]): ToolCallRepair {
  const tools = [...new Set(found.flatMap((f) => f.tools))]
  return {
    kind: 'in-prose',
    tools,
    problem: `a call to ${tools.join(', ')} inside other text was not run`,
    format: found[0].written,
    family: 'in-prose',
  }
}

/** Hermes is the format every text-tools prompt teaches (see ../text-fallback.ts). */
export const DEFAULT_CALL_FORMAT =
  '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/index.ts"}}\n</tool_call>'

export function repairFor(
  broken: readonly UnparsedCall[],
  families: readonly ToolCallFamily[] = FAMILIES,
): ToolCallRepair {
  const problems = [...new Set(broken.map((b) => b.problem))]
  const family = families.find((f) => f.id === broken[0]?.family)
  return {
    problem:
      problems.slice(0, 3).join('; ') + (problems.length > 3 ? `; and ${problems.length - 3} more` : ''),
    format: family?.example ?? DEFAULT_CALL_FORMAT,
    family: family?.id ?? 'hermes',
  }
}

/**
 * The one message the agent loop sends after an unreadable call: what could not be
 * read, that nothing ran, and one call written exactly as the model should write it.
 */
export function repairMessage(repair: ToolCallRepair, toolNames: readonly string[]): string {
  if (repair.kind === 'in-prose') {
    const tools = (repair.tools ?? []).join(', ')
    return [
      `Your last answer contains a call to ${tools} inside other text, so it was not run.`,
      `To run ${tools}, reply with only the call, nothing before or after it:`,
      '',
      repair.format,
      '',
      'If you did not mean to call a tool (it was an example), answer again without the call.',
    ].join('\n')
  }
  return [
    `Your last answer contains a tool call that could not be read: ${repair.problem}. Nothing was run.`,
    `To call a tool, write the call again exactly in this format (valid JSON, one call per block, only these tools: ${toolNames.join(', ')}):`,
    '',
    repair.format,
    '',
    'If you did not mean to call a tool, answer without any tool-call markup.',
  ].join('\n')
}

/**
 * Small models go on after a call to imagine its answer (`<tool_response>…`) and act
 * on it. Whatever follows the first imagined answer is dropped: its calls would rest
 * on a result that does not exist, and the real one is coming. So is whatever follows
 * an imagined turn of another role (`<|im_start|>user…`, see ./turns.ts).
 */
function cutAtImaginedResult(
  text: string,
  acting: Acting[],
  otherTurn: number,
): { acts: Acting[]; end: number } {
  const first = acting.find((a) => a.span.valid)
  const cut = first ? text.indexOf('<tool_response>', first.taken.end) : -1
  // An imagined turn of the user, the system or a tool ends the answer, call or no call before it.
  const end = Math.min(cut < 0 ? text.length : cut, otherTurn < 0 ? text.length : otherTurn)
  return { acts: acting.filter((a) => a.taken.start < end), end }
}

function runFamily(
  family: ToolCallFamily,
  text: string,
): { spans: Span[]; broken: Omit<UnparsedCall, 'family'>[] } {
  try {
    return family.detect(text) ? family.parse(text) : { spans: [], broken: [] }
  } catch {
    // A family that trips on odd text must not cost the turn: it simply found nothing.
    return { spans: [], broken: [] }
  }
}

/** Valid spans win over invalid ones, then the longer (outer) one, then markup over bare JSON. */
function resolveOverlaps(candidates: Candidate[]): Candidate[] {
  const ranked = [...candidates].sort(
    (a, b) =>
      Number(b.valid) - Number(a.valid) ||
      b.end - b.start - (a.end - a.start) ||
      Number(b.kind === 'markup') - Number(a.kind === 'markup') ||
      a.start - b.start,
  )
  // Chosen spans never overlap, so kept sorted by start; a candidate can only collide with
  // the last chosen span starting before its end (a binary search, not a scan).
  const chosen: Candidate[] = []
  for (const c of ranked) {
    let lo = 0
    let hi = chosen.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (chosen[mid].start < c.end) lo = mid + 1
      else hi = mid
    }
    const before = chosen[lo - 1]
    if (!before || before.end <= c.start) chosen.splice(lo, 0, c)
  }
  return chosen
}

/**
 * Gemma 3 calls tools in a ```tool_code fence: such a fence that the family reported
 * whole as broken, and that is the whole answer (a short lead-in aside), is a failed
 * call, not code shown in prose.
 */
function isCallFence(text: string, region: Region, broken: Region): boolean {
  return (
    region.start === broken.start &&
    text.startsWith('```tool_code', region.start) &&
    isWholeAnswer(text, [region])
  )
}

/**
 * Where the end-of-turn tokens a server left at the very end (`…}<|im_end|>`) start, or -1.
 * They are blanked before the families read the answer (a call cut off by the stop token
 * would otherwise run into them) and dropped from the text shown.
 */
function trailingEos(text: string): number {
  const m =
    /(?:\s*(?:<\|(?:im_end|eot_id|eom_id|endoftext|end_of_text)\|>|<\/s>|<eos>|<end_of_turn>))+\s*$/.exec(
      text,
    )
  return m ? m.index : -1
}

/** Text that is neither whitespace nor an end-of-turn token. */
function prose(s: string): string {
  return s.replace(LEFTOVER_TOKENS, '').trim()
}

function isFence(text: string, region: Region): boolean {
  return /^ {0,3}(`{3}|~{3})/.test(text.slice(region.start, region.end))
}

/** The fence's body is the span and nothing else (its info string and whitespace aside). */
function fenceHoldsOnly(text: string, fence: Region, span: Region): boolean {
  const body = text.slice(fence.start, fence.end)
  const firstLineEnd = body.indexOf('\n')
  const innerStart = fence.start + (firstLineEnd < 0 ? body.length : firstLineEnd + 1)
  const closing = /\n {0,3}(`{3,}|~{3,})\s*$/.exec(body)
  const innerEnd = closing ? fence.start + closing.index : fence.end
  const rest = text.slice(innerStart, span.start) + text.slice(span.end, innerEnd)
  return rest.replace(LEFTOVER_TOKENS, '').trim() === ''
}

/**
 * The text up to `end` without `regions` and without end-of-turn tokens. Tokens are
 * found in the masked text, so a reasoning block keeps its own (harmony's analysis
 * keeps its `<|end|>`) and stays as the model wrote it.
 */
function withoutRegions(text: string, masked: string, end: number, regions: readonly Region[]): string {
  const cuts: Region[] = [...regions]
  for (const m of masked.matchAll(LEFTOVER_TOKENS)) cuts.push({ start: m.index, end: m.index + m[0].length })
  let rest = ''
  let pos = 0
  for (const r of cuts.sort((a, b) => a.start - b.start)) {
    if (r.start >= end) break
    rest += text.slice(pos, Math.max(pos, r.start))
    pos = Math.max(pos, r.end)
  }
  rest += text.slice(pos, Math.max(pos, end))
  return rest.replace(/\n{3,}/g, '\n\n').trim()
}

/** What every family found in the masked answer: checked call spans, broken blocks, and markup without calls. */
function collectCandidates(
  masked: string,
  tools: readonly ToolSpec[],
  families: readonly ToolCallFamily[],
): { candidates: Candidate[]; familyBroken: UnparsedCall[]; callless: Region[] } {
  const candidates: Candidate[] = []
  const familyBroken: UnparsedCall[] = []
  // Markup without calls (harmony's headers and terminators around the final answer):
  // protocol, not prose, so it goes once calls run.
  const callless: Region[] = []
  for (const family of families) {
    const result = runFamily(family, masked)
    for (const span of result.spans) {
      if (span.calls.length === 0 && span.kind === 'markup' && span.end > span.start) callless.push(span)
      if (span.calls.length === 0 || span.end <= span.start) continue
      const checked = span.calls.map((c) => checkCall(c, tools))
      candidates.push({ ...span, family: family.id, checked, valid: checked.every((c) => c.ok) })
    }
    for (const b of result.broken) familyBroken.push({ ...b, family: family.id })
  }
  return { candidates, familyBroken, callless }
}

/** The chosen spans that may act (examples left out), each with the region it takes and whether the act rule applies. */
function actingSpans(
  chosen: readonly Candidate[],
  regions: readonly Region[],
  { masked, text }: { masked: string; text: string },
): Acting[] {
  const acting: Acting[] = []
  let floor = 0
  let example = false
  for (const span of chosen) {
    const region = enclosingRegion(regions, span)
    // "For example, you could call <tool_call>…": shown, not made; so are the calls that
    // follow an example with nothing but whitespace between.
    const follows: boolean = example && prose(masked.slice(floor, span.start)) === ''
    example = follows || shownAsExample(masked, span, floor, text)
    floor = span.end
    if (example) continue
    if (!region) {
      acting.push({ span, taken: span, needsWholeAnswer: span.kind === 'json' })
    } else if (
      isFence(masked, region) &&
      fenceHoldsOnly(masked, region, span) &&
      !shownAsExample(masked, region, 0, text)
    ) {
      // A fence around nothing but the call: the act rule decides, on the whole fence.
      acting.push({ span, taken: region, needsWholeAnswer: true })
    }
    // Anything else inside code shown in prose is an example.
  }
  // A fenced call next to markup written outside any fence is the example of it (vLLM's
  // test_qwen3_fenced_examples: "~~~xml <call> ~~~" then the real call).
  if (acting.some((a) => a.taken === a.span && a.span.kind === 'markup'))
    return acting.filter((a) => a.taken === a.span)
  return acting
}
