import type fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { toElicitation, type Elicit } from './elicitation'
import type { McpServerState } from '../../shared/protocol'
import { VERSION } from '../version'
import { describeTarget, isStdio, type McpServerConfig } from './config'
import { closeLog, httpTarget, logPath, openLog, stdioLaunch } from './launch'
import { ServerAuth, type McpAuthContext, type OpenUrl } from './oauth/flow'
import { callTimeout, isSignInError, olderTransportMayAnswer, startFailureMessage } from './connection-errors'
import { isUnauthorized, needsSignInMessage } from './sign-in-errors'
import { listPrompts, promptText, type PromptInfo } from './prompts'
import { listResources, readResource, type ResourceInfo, type TemplateInfo } from './resources'
import type { McpCallResult } from './results'
import type { McpCallOptions, McpToolInfo } from './tools'
import { pushAll } from '../../shared/arrays'
import { errorMessage } from '../../shared/errors'

/*
 * One MCP server: its transport (stdio, or Streamable HTTP falling back to the older SSE
 * transport), its state, its tool list (kept fresh on `tools/list_changed`), restarts with
 * backoff after a crash, and its stderr, appended to a per-server log in the data folder.
 */

export interface ConnectionOptions {
  dataDir: string
  repo?: string
  env?: NodeJS.ProcessEnv
  /** How long `initialize` and the first `tools/list` may take. */
  startTimeoutMs: number
  /** Longest silence during a tool call (progress notifications reset it). */
  callTimeoutMs?: number
  /** Restarts after crashes before the server is marked failed (their delays double from 500 ms). */
  maxRestarts?: number
  /** Asked before each spawn of a stdio server: a reason not to start it now, or undefined. */
  launchRefusal?: () => string | undefined
  /** Asks the user what a server wants to know (elicitation); without it, questions are declined. */
  elicit?: Elicit
  /** Where OAuth sign-ins are kept (./oauth/store.ts). */
  auth: McpAuthContext
  /** Asked at each start: how to show an authorization URL, when the user is signing in now. */
  signIn?: () => OpenUrl | undefined
  onChange(): void
}

const STDERR_TAIL = 2000

export class McpConnection {
  state: McpServerState = 'stopped'
  error?: string
  tools: McpToolInfo[] = []
  resources: ResourceInfo[] = []
  prompts: PromptInfo[] = []
  templates: TemplateInfo[] = []
  /** What the server said in `initialize` about using it (untrusted; bounded where used). */
  instructions?: string
  private client?: Client
  private log?: fs.WriteStream
  private stderrTail = ''
  private stopping = false
  private restarts = 0
  private restartTimer?: NodeJS.Timeout
  /** Settles when a scheduled restart has run (or was called off): calls wait for it. */
  private restarting?: { done: Promise<void>; settle(): void }
  private starting?: Promise<void>
  /** The client of a start in progress, closed by stop(). */
  private connecting?: Client
  private exitInfo = ''
  /** The OAuth side of an HTTP server's connection, for its life. */
  private auth?: ServerAuth
  /** When it last became ready: a server up for a minute has its crash budget back. */
  private readyAt = 0

  constructor(
    readonly config: McpServerConfig,
    private readonly opts: ConnectionOptions,
  ) {}

  get logFile(): string {
    return logPath(this.opts.dataDir, this.config.name)
  }

  /** Starts the server (once at a time); resolves when it is ready or has failed, never throws. */
  start(): Promise<void> {
    this.stopping = false
    this.starting ??= this.connect().finally(() => (this.starting = undefined))
    return this.starting
  }

  private setState(state: McpServerState, error?: string): void {
    this.state = state
    this.error = error
    this.opts.onChange()
  }

  private async connect(): Promise<void> {
    this.setState('starting')
    this.stderrTail = ''
    this.exitInfo = ''
    this.log ??= openLog(this.logFile)
    this.log.write(`--- ${new Date().toISOString()} starting: ${describeTarget(this.config.spec)}\n`)
    this.auth?.close()
    this.auth = undefined
    const open = this.opts.signIn?.()
    // Each round that ends in a completed sign-in connects again with the new tokens; the
    // provider stops after MAX_AUTHORIZATIONS sign-ins, so this ends.
    for (;;) {
      const client = this.newClient()
      this.connecting = client
      try {
        await this.connectTransport(client, open)
        // Stopped while it started (the session ended): close it rather than keep a child alive.
        if (this.stopping) throw new Error('stopped while starting')
        this.client = client
        await this.refreshTools()
        await this.refreshResources().catch((err: Error) =>
          this.log?.write(`resources/list failed: ${err.message}\n`),
        )
        this.instructions = client.getInstructions()
        this.readyAt = Date.now()
        this.setState('ready')
        return
      } catch (err) {
        await client.close().catch(() => undefined)
        if (this.client === client) this.client = undefined
        if (this.stopping) return
        let failure = this.describeFailure(err, isSignInError(err))
        try {
          if (await this.completeSignIn(err)) continue
        } catch (signInError) {
          failure = this.describeFailure(signInError, true)
        }
        if (isUnauthorized(failure)) this.setState('needs-sign-in', needsSignInMessage(this.config))
        else this.setState('failed', this.startFailure(failure))
        return
      } finally {
        if (this.connecting === client) this.connecting = undefined
      }
    }
  }

  private describeFailure(err: unknown, fromSignIn: boolean): unknown {
    return this.auth && err instanceof Error ? this.auth.describe(err, fromSignIn) : err
  }

  /** True when a sign-in was under way and is now done: try again with the new tokens. */
  private completeSignIn(err: unknown): Promise<boolean> {
    return this.auth?.complete(err) ?? Promise.resolve(false)
  }

  private newClient(): Client {
    // Form answers get the schema's defaults for fields left empty (SEP-1034); URL mode opens a link.
    const client = new Client(
      { name: 'stepwise', version: VERSION },
      { capabilities: { elicitation: { form: { applyDefaults: true }, url: {} }, roots: {} } },
    )
    // Roots: the project folder is what the server may work on.
    client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: this.opts.repo
        ? [{ uri: pathToFileURL(this.opts.repo).href, name: path.basename(this.opts.repo) }]
        : [],
    }))
    client.setNotificationHandler(PromptListChangedNotificationSchema, async () => {
      if (this.client !== client) return
      this.prompts = await listPrompts(client, this.opts.startTimeoutMs).catch(() => this.prompts)
      this.opts.onChange()
    })
    client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => {
      if (this.client !== client) return
      await this.refreshResources().catch((err: Error) =>
        this.log?.write(`resources/list failed: ${err.message}\n`),
      )
      this.opts.onChange()
    })
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      const elicit = this.opts.elicit
      if (!elicit) {
        this.log?.write(`elicitation declined (nobody to ask): ${request.params.message}\n`)
        return { action: 'decline' }
      }
      return elicit(toElicitation(this.config.name, request.params), extra.signal)
    })
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (this.client !== client) return
      await this.refreshTools().catch((err: Error) => this.log?.write(`tools/list failed: ${err.message}\n`))
      this.opts.onChange()
    })
    return client
  }

  private async connectTransport(client: Client, open: OpenUrl | undefined): Promise<void> {
    const { spec } = this.config
    const timeout = this.opts.startTimeoutMs
    if (isStdio(spec)) {
      const refusal = this.opts.launchRefusal?.()
      if (refusal) throw new Error(refusal)
      const launch = stdioLaunch({ ...this.config, spec }, this.opts.repo, this.opts.env)
      if (launch.refused) throw new Error(launch.refused)
      const transport = new StdioClientTransport({ ...launch, stderr: 'pipe' })
      transport.stderr?.on('data', (chunk: Buffer) => this.onStderr(chunk.toString('utf8')))
      this.watchClose(client, transport)
      await client.connect(transport, { timeout })
      return
    }
    const target = httpTarget({ ...this.config, spec }, this.opts.env ?? process.env)
    const { url } = target
    if (!this.auth) {
      this.auth = new ServerAuth(
        { ...this.config, spec },
        target,
        this.opts.auth,
        this.opts.env ?? process.env,
      )
      await this.auth.prepare(open)
    }
    // The configured headers go through the auth's fetch, to the server's origin only: never to
    // an authorization server elsewhere (the SDK would send `requestInit` headers there too).
    const { provider: authProvider, fetch } = this.auth
    if (spec.type === 'sse') {
      await this.connectWith(client, new SSEClientTransport(url, { authProvider, fetch }), timeout)
      return
    }
    try {
      await this.connectWith(client, new StreamableHTTPClientTransport(url, { authProvider, fetch }), timeout)
    } catch (err) {
      // Only an HTTP 4xx at the POST means "maybe the older SSE transport" (the spec's backwards
      // compatibility rule); a 401 asks for credentials (a sign-in under way is finished by
      // connect()), and a failed sign-in or an unreachable host would only fail again, less clearly.
      if (!olderTransportMayAnswer(err)) throw err
      if (spec.type === 'http' || spec.type === 'streamable-http' || spec.type === 'streamableHttp') throw err
      // Servers from before Streamable HTTP speak the older SSE transport at the same URL.
      this.log?.write(`Streamable HTTP failed (${errorMessage(err)}); trying SSE\n`)
      await this.connectWith(client, new SSEClientTransport(url, { authProvider, fetch }), timeout)
    }
  }

  private async connectWith(client: Client, transport: Transport, timeout: number): Promise<void> {
    this.watchClose(client, transport)
    await client.connect(transport, { timeout })
  }

  /** A server that goes away while in use is restarted, with backoff, up to `maxRestarts` times in a row. */
  private watchClose(client: Client, transport: Transport): void {
    const process = transport instanceof StdioClientTransport ? transport : undefined
    client.onclose = () => {
      const pid = process?.pid
      this.log?.write(`--- ${new Date().toISOString()} connection closed${pid ? ` (pid ${pid})` : ''}\n`)
      if (this.client !== client || this.stopping) return
      this.client = undefined
      this.exitInfo = 'the server closed the connection'
      if (Date.now() - this.readyAt > 60_000) this.restarts = 0
      const max = this.opts.maxRestarts ?? 3
      if (this.restarts >= max) {
        this.setState(
          'failed',
          `MCP server "${this.config.name}" stopped ${max + 1} times in a row and is not restarted again (command: ${describeTarget(this.config.spec)}).${this.stderrSuffix()}`,
        )
        return
      }
      const delay = 500 * 2 ** this.restarts
      this.restarts += 1
      this.setState('starting', `restarting in ${delay} ms after a crash`)
      let settle = (): void => {}
      const done = new Promise<void>((resolve) => (settle = resolve))
      const restarting = { done, settle }
      this.restarting = restarting
      this.restartTimer = setTimeout(() => {
        void this.start().finally(() => {
          if (this.restarting === restarting) this.restarting = undefined
          settle()
        })
      }, delay)
      this.restartTimer.unref?.()
    }
  }

  private onStderr(text: string): void {
    this.log?.write(text)
    this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL)
  }

  private stderrSuffix(): string {
    const tail = this.stderrTail.trim()
    return tail ? ` Its last output on stderr:\n${tail}` : ''
  }

  private startFailure(err: unknown): string {
    return startFailureMessage(this.config, err, this.opts.startTimeoutMs) + this.stderrSuffix()
  }

  private async refreshTools(): Promise<void> {
    const client = this.client
    if (!client) return
    if (!client.getServerCapabilities()?.tools) {
      this.tools = []
      return
    }
    const tools: McpToolInfo[] = []
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, {
        timeout: this.opts.startTimeoutMs,
      })
      pushAll(tools, page.tools as McpToolInfo[])
      cursor = page.nextCursor
    } while (cursor && tools.length < 1000)
    this.tools = tools
  }

  private async refreshResources(): Promise<void> {
    const client = this.client
    if (!client) return
    const { resources, templates } = await listResources(client, this.opts.startTimeoutMs)
    this.resources = resources
    this.templates = templates
    this.prompts = await listPrompts(client, this.opts.startTimeoutMs)
  }

  /** `prompts/get`, as the text of a message. */
  async getPrompt(name: string, args: Record<string, string>): Promise<string> {
    if (!this.client || this.state !== 'ready')
      throw new Error(`MCP server "${this.config.name}" is not running (${this.state}).`)
    return promptText(this.client, name, args, this.opts.startTimeoutMs)
  }

  /** The server offers resources: the model gets its read_resource tool. */
  get hasResources(): boolean {
    return this.client?.getServerCapabilities()?.resources !== undefined
  }

  /** `resources/read` for the model's read_resource tool. */
  async readResource(uri: unknown, opts: McpCallOptions): Promise<McpCallResult> {
    if (this.starting) await this.starting
    const client = this.client
    if (!client || this.state !== 'ready')
      throw new Error(`MCP server "${this.config.name}" is not running (${this.state}).`)
    return readResource(client, uri, opts, callTimeout(this.config, this.opts.callTimeoutMs))
  }

  async callTool(name: string, args: Record<string, unknown>, opts: McpCallOptions): Promise<McpCallResult> {
    // A crashed server being restarted answers once it is back (or has failed for good).
    if (this.restarting) await this.restarting.done
    if (this.starting) await this.starting
    const client = this.client
    if (!client || this.state !== 'ready')
      throw new Error(
        `MCP server "${this.config.name}" is not running (${this.state}${this.error ? `: ${this.error}` : ''}).`,
      )
    // A server asking for more permissions (403 insufficient_scope) while the user can sign in
    // is answered by signing in again and calling once more.
    for (;;) {
      try {
        const result = await client.callTool({ name, arguments: args }, CallToolResultSchema, {
          signal: opts.signal,
          onprogress: (p) => opts.onProgress(p),
          resetTimeoutOnProgress: true,
          timeout: callTimeout(this.config, this.opts.callTimeoutMs),
        })
        return result as McpCallResult
      } catch (err) {
        if (opts.signal.aborted) throw err
        if (await this.completeSignIn(err)) continue
        if (isUnauthorized(err)) throw new Error(needsSignInMessage(this.config), { cause: err })
        if (this.client !== client)
          throw new Error(
            `MCP server "${this.config.name}" exited during the call (${this.exitInfo || errorMessage(err)}); it is being restarted.${this.stderrSuffix()}`,
            { cause: err },
          )
        throw err
      }
    }
  }

  async stop(): Promise<void> {
    this.stopping = true
    clearTimeout(this.restartTimer)
    this.restarting?.settle()
    this.restarting = undefined
    const clients = [this.client, this.connecting]
    this.client = undefined
    await Promise.all(clients.map((c) => c?.close().catch(() => undefined)))
    this.auth?.close()
    const log = this.log
    this.log = undefined
    if (log) await closeLog(log)
    if (this.state !== 'failed') this.setState('stopped')
  }

  /** Restart on the user's request: the crash budget starts over. */
  async restart(): Promise<void> {
    await this.stop()
    this.restarts = 0
    await this.start()
  }
}
