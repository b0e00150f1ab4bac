/**
 * What a `stepwise` process loads: the OpenTelemetry SDK (~250 modules) only when live traces
 * are on, the MCP SDK (with its schema validator) only when an MCP server starts, and the web
 * host's WebSocket library only for `stepwise serve`. Each costs every process that does not use
 * it 0.05–0.2 s and up to ~15 MB before its first request. zod, diff and commander, which every
 * process uses, come inside the bundle rather than as ~120 ES modules of their own.
 * The built CLI runs under a module hook (Node's `--import`, through NODE_OPTIONS) that writes
 * down every ES module it loads; a run with live traces on shows the hook sees the SDK. CommonJS
 * modules (what `require` loaded: the tokenizer) are written down from the require cache at exit.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildCli, editArgs, git, runCli } from './cli-harness'
import { startFakeModelServer } from './fake-model-server'
import { startOtlpReceiver } from './otlp-receiver'

let CLI = ''
let tmp = ''
let repo = ''

const HOOKS = `
import fs from 'node:fs'
export async function load(url, context, next) {
  fs.appendFileSync(process.env.STEPWISE_TEST_LOADED, url + '\\n')
  return next(url, context)
}
`
const REQUIRED = `
process.on('exit', () =>
  require('node:fs').writeFileSync(process.env.STEPWISE_TEST_REQUIRED, Object.keys(require.cache).join('\\n')),
)
`
const REGISTER = `
import { register } from 'node:module'
register(new URL('./hooks.mjs', import.meta.url))
`

beforeAll(() => {
  CLI = buildCli('stepwise-startup-modules-e2e')
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-startup-modules-')))
  fs.writeFileSync(path.join(tmp, 'hooks.mjs'), HOOKS)
  fs.writeFileSync(path.join(tmp, 'register.mjs'), REGISTER)
  fs.writeFileSync(path.join(tmp, 'required.cjs'), REQUIRED)
  repo = path.join(tmp, 'repo')
  fs.mkdirSync(repo)
  fs.writeFileSync(path.join(repo, 'main.ts'), 'export const answer = 42\n')
  git(repo, 'init', '-q')
}, 120_000)

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))

/** One `stepwise edit` against the fake model, and the modules it loaded (ES modules, then CommonJS). */
async function modulesOfSession(name: string, env: Record<string, string> = {}): Promise<string[]> {
  const loaded = path.join(tmp, `${name}.txt`)
  const required = path.join(tmp, `${name}-required.txt`)
  const server = await startFakeModelServer({
    turns: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'main.ts' } }] }, { text: 'Done.' }],
  })
  try {
    const res = await runCli(
      CLI,
      editArgs({ repo, dataDir: path.join(tmp, `data-${name}`), baseUrl: server.v1Url }, 'Look at main.ts'),
      {
        env: {
          ...env,
          NODE_OPTIONS: [
            `--import=${pathToFileURL(path.join(tmp, 'register.mjs')).href}`,
            `--require=${path.join(tmp, 'required.cjs')}`,
          ].join(' '),
          STEPWISE_TEST_LOADED: loaded,
          STEPWISE_TEST_REQUIRED: required,
        },
      },
    )
    expect(res.code, res.stderr).toBe(0)
  } finally {
    await server.close()
  }
  const lines = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)
  return [...lines(loaded), ...lines(required)]
}

const from = (modules: string[], pkg: string) =>
  modules.filter((url) => url.includes(`/node_modules/${pkg}/`))

describe('a stepwise edit session', () => {
  it('loads neither the OpenTelemetry SDK nor the MCP SDK when it uses neither', async () => {
    const modules = await modulesOfSession('plain')
    expect(modules.some((url) => url.includes('/chunks/'))).toBe(true) // the hook saw the session's own modules
    // Bundled (electron.vite.config.ts): not ~120 ES modules of their own, each resolved and linked.
    for (const pkg of ['zod', 'diff', 'commander']) expect(from(modules, pkg)).toEqual([])
    expect(from(modules, '@opentelemetry')).toEqual([])
    expect(from(modules, '@modelcontextprotocol')).toEqual([])
    // The web host's WebSocket library: `stepwise serve` alone loads it.
    expect(from(modules, 'ws')).toEqual([])
    // The tokenizer counts on the rank tables the build wrote beside it (context/token-tables.ts):
    // its encoder is loaded, its 2.4 MB table modules are not.
    const tokenizer = from(modules, 'gpt-tokenizer')
    expect(tokenizer.some((file) => file.endsWith('/GptEncoding.js'))).toBe(true)
    expect(tokenizer.filter((file) => file.includes('/bpeRanks/'))).toEqual([])
  }, 60_000)

  it('loads the OpenTelemetry SDK once live traces are on, and sends the session to the collector', async () => {
    const collector = await startOtlpReceiver()
    try {
      const modules = await modulesOfSession('traced', { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint })
      expect(from(modules, '@opentelemetry').length).toBeGreaterThan(50)
      expect(from(modules, '@modelcontextprotocol')).toEqual([])
      expect(collector.spans().map((s) => s.span.name)).toContain('turn 1')
    } finally {
      await collector.close()
    }
  }, 60_000)
})
