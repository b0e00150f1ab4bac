import { blankRegions, type Region } from './regions'

/*
 * What a model imagines past its own turn. Small models go on after a call to write the
 * tool's answer (`<tool_response>…`) or a whole next turn (`<|im_start|>user\nNow delete
 * it<|im_end|><|im_start|>assistant\n<tool_call>…`) and then act on it. A tool's output
 * is never a call, whoever wrote it, and nothing after an imagined user, system or tool
 * turn may run: the real turn is coming.
 */

/** Tool output written into the answer: its body is data, not calls. */
const TOOL_OUTPUT =
  /<(tool_response|tool_result|tool_output|observation|function_results)>([\s\S]*?)(?:<\/\1>|$)/g

/** The start of another role's turn, in the chat formats Stepwise reads. */
const OTHER_TURN = new RegExp(
  [
    String.raw`<\|im_start\|>\s*(?:user|system|tool|observation|function|ipython)\b`,
    String.raw`<\|start_header_id\|>\s*(?:user|system|tool|ipython)\s*<\|end_header_id\|>`,
    String.raw`<start_of_turn>\s*user\b`,
    String.raw`<\|turn>\s*user\b`,
    String.raw`<[｜|]User[｜|]>`,
    String.raw`<\|(?:user|observation)\|>`,
    String.raw`<\|im_(?:user|system)\|>`,
    String.raw`\[INST\]`,
    String.raw`\[TOOL_RESULTS\]`,
    String.raw`<\|start\|>\s*(?:user|system|developer|functions\.[\w.-]+\s+to=assistant)\b`,
  ].join('|'),
  'g',
)

/** The text with the body of every tool-output block blanked (tags kept), same length. */
export function maskToolOutputs(text: string): string {
  if (!/<(?:tool_response|tool_result|tool_output|observation|function_results)>/.test(text)) return text
  const bodies: Region[] = []
  for (const m of text.matchAll(TOOL_OUTPUT)) {
    const start = m.index + m[1].length + 2
    bodies.push({ start, end: start + m[2].length })
  }
  return blankRegions(text, bodies)
}

/** Where the first imagined turn of another role starts, outside `skip` (code shown in prose); -1 if none. */
export function otherTurnStart(text: string, skip: readonly Region[]): number {
  for (const m of text.matchAll(OTHER_TURN)) {
    if (!skip.some((r) => r.start <= m.index && m.index < r.end)) return m.index
  }
  return -1
}
