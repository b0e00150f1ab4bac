/*
 * Tool calls written as text by open models (issue: local models). One module per
 * format family in `families/`, each behind this small interface; `index.ts` runs
 * them, drops what sits inside reasoning, checks each call against the tools that
 * were offered, and decides whether the text is the model's act or only an example.
 */

/** A call as a family read it: the name as written, arguments as an object or a JSON string. */
export interface RawCall {
  name: string
  /** An object, or a string holding JSON (some formats carry arguments as a JSON string). */
  arguments: unknown
}

/** A stretch of the answer a family recognised: where it is, and the calls it holds. */
export interface Span {
  /** Offsets into the text given to `parse` (start inclusive, end exclusive). */
  start: number
  end: number
  calls: RawCall[]
  /**
   * How the calls were marked. `markup`: a format's own wrapper or special token
   * (`<tool_call>`, `[TOOL_CALLS]`, `<|tool▁calls▁begin|>`, `<function=…>`), which a
   * model writes only to act. `json`: bare or fenced JSON, or a pythonic list with no
   * marker, which also appears in explanations; `index.ts` applies the stricter
   * "the message is that call" rule to these.
   */
  kind: 'markup' | 'json'
}

/** Markup a family recognised but could not read (broken JSON, an unclosed wrapper). */
export interface BrokenSpan {
  start: number
  end: number
  /** What went wrong, for the repair message: "the JSON after [TOOL_CALLS] does not parse (…)". */
  problem: string
}

export interface FamilyResult {
  spans: Span[]
  broken: BrokenSpan[]
}

export interface ToolCallFamily {
  /** Short id used in tests and corpora: `hermes`, `mistral`, `deepseek`, … */
  id: string
  /** The models that write it, for docs and messages. */
  models: string
  /** Cheap test: does the text hold this family's markers at all? */
  detect(text: string): boolean
  /**
   * Every call in `text`, which has already had reasoning blocks removed. Names are
   * returned as written (possibly `functions.read_file`, `default_api.read_file`);
   * `index.ts` normalises and checks them against the offered tools.
   */
  parse(text: string): FamilyResult
  /** How to write one call in this format, for the repair message (one short example). */
  example: string
}
