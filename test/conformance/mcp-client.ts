/**
 * Stepwise's MCP client under the official conformance runner (@modelcontextprotocol/conformance):
 * the runner starts a scenario's server (and authorization server) and runs this with its URL as
 * the last argument, the scenario in MCP_CONFORMANCE_SCENARIO and, for some, credentials in
 * MCP_CONFORMANCE_CONTEXT. It connects through McpManager exactly as a session does — the
 * config file, the OAuth sign-in with its loopback callback and token store, elicitation — lists
 * the tools and calls each one. Only the user is played here: the "browser" follows the
 * authorization server's redirect to the loopback (the scenarios' servers approve at once), and
 * the answer to a form is an empty submission, as when the user accepts every default.
 * How to run it: docs/mcp.md#conformance; test/mcp-conformance.e2e.test.ts runs every scenario.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { McpManager } from '../../src/main/mcp/manager'

const url = process.argv.at(-1)!
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? ''
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, string>

/** What a user would write in mcp.json for this server. */
function entry(): Record<string, unknown> {
  if (scenario === 'auth/pre-registration')
    return { url, oauth: { clientId: context.client_id, clientSecret: context.client_secret } }
  if (scenario === 'auth/client-credentials-basic')
    return {
      url,
      oauth: {
        grantType: 'client_credentials',
        clientId: context.client_id,
        clientSecret: context.client_secret,
      },
    }
  if (scenario === 'auth/client-credentials-jwt') {
    const keyFile = path.join(dataDir, 'client-key.pem')
    fs.writeFileSync(keyFile, context.private_key_pem, { mode: 0o600 })
    return {
      url,
      oauth: {
        grantType: 'client_credentials',
        clientId: context.client_id,
        privateKeyFile: keyFile,
        signingAlgorithm: context.signing_algorithm ?? 'ES256',
      },
    }
  }
  return { url }
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-mcp-conformance-'))
fs.writeFileSync(path.join(dataDir, 'mcp.json'), JSON.stringify({ mcpServers: { conf: entry() } }))
const settings = new Map<string, string>()
const manager = new McpManager({
  dataDir,
  store: { getSetting: (k) => settings.get(k), setSetting: (k, v) => void settings.set(k, v) },
  startTimeoutMs: 10_000,
  // The scenarios' fixed client metadata URL: what a deployment hosting its document would configure.
  clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
  // The user's browser: opens the authorization URL, which redirects to the loopback callback.
  signIn: async (authorizationUrl) => {
    const res = await fetch(authorizationUrl)
    await res.body?.cancel()
  },
  elicit: async () => ({ action: 'accept', content: {} }),
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
  // What a sign-in left behind, for the test to check it holds no half-done state.
  const stored = path.join(dataDir, 'mcp-oauth.json')
  if (fs.existsSync(stored))
    console.log(
      'oauth-store',
      (fs.statSync(stored).mode & 0o777).toString(8),
      Object.keys(JSON.parse(fs.readFileSync(stored, 'utf8')).servers?.conf ?? {})
        .sort()
        .join(','),
    )
  fs.rmSync(dataDir, { recursive: true, force: true })
}
