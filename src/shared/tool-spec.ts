/**
 * The JSON a provider sends to the model for one tool: its name, the description the model reads
 * and the JSON Schema of its arguments. The tools build these (src/main/tools/registry.ts); the
 * providers only send them and check calls against them, so they need not know the tools.
 */
export interface ToolSpec {
  name: string
  description: string
  parameters: Record<string, unknown>
}
