import { createSandbox } from '../src/main/containment/sandbox'
import { DEFAULT_LIMITS } from '../src/main/session/start'
import { createReadTracker } from '../src/main/tools/read-tracker'
import { findTool, parseToolCall } from '../src/main/tools/registry'
import type { ToolContext, ToolResult } from '../src/main/tools/types'

/* The tools as the agent runs them: a real sandbox and context, calls through the registry. */

export async function toolContext(root: string): Promise<ToolContext> {
  const sandbox = await createSandbox(root)
  return {
    root: sandbox.root,
    sandbox,
    reads: createReadTracker(),
    limits: DEFAULT_LIMITS,
    signal: new AbortController().signal,
  }
}

/** Looks the tool up, validates the JSON arguments and runs it, exactly as the agent loop does. */
export async function callTool(
  ctx: ToolContext,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  const tool = findTool(name)
  if (!tool || tool.mutating) throw new Error(`${name} is not a read tool`)
  const parsed = parseToolCall(tool, JSON.stringify(args))
  if (!parsed.ok) throw new Error(parsed.error)
  return tool.run(parsed.input as never, ctx)
}

/** The ok result's fields; a failed call is a broken benchmark, not a figure. */
export function okFields(result: ToolResult): Record<string, unknown> {
  if (!result.ok) throw new Error(`tool failed: ${result.error}`)
  return result
}
