/**
 * Stepwise's MCP client under the official conformance runner (@modelcontextprotocol/conformance):
 * the runner starts a scenario's server and runs this with its URL as the last argument and the
 * scenario in MCP_CONFORMANCE_SCENARIO. It connects through McpManager exactly as a session does,
 * lists the tools and calls each one with the arguments the scenario's tool takes.
 * How to run it: docs/mcp.md#conformance.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { McpManager } from '../../src/main/mcp/manager'

const url = process.argv.at(-1)!
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-mcp-conformance-'))
fs.writeFileSync(path.join(dataDir, 'mcp.json'), JSON.stringify({ mcpServers: { conf: { url } } }))
const settings = new Map<string, string>()
const manager = new McpManager({
  dataDir,
  store: { getSetting: (k) => settings.get(k), setSetting: (k, v) => void settings.set(k, v) },
  startTimeoutMs: 10_000,
})

/** Arguments for the scenarios' tools (the runner checks what the server received). */
const ARGS: Record<string, Record<string, unknown>> = { add_numbers: { a: 2, b: 3 } }

try {
  await manager.start()
  const failures = manager.failures()
  if (failures.length > 0) throw new Error(failures.join('\n'))
  for (const tool of manager.tools()) {
    const result = await tool.call(ARGS[tool.mcp.tool] ?? {}, {
      signal: AbortSignal.timeout(20_000),
      onProgress: () => {},
    })
    console.log(tool.name, JSON.stringify(result.result))
  }
} finally {
  await manager.stop()
  fs.rmSync(dataDir, { recursive: true, force: true })
}
