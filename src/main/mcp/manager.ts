import type {
  McpCatalog,
  McpListOutput,
  McpServerState,
  McpServerView,
  McpSettings,
} from '../../shared/protocol'
import { catalogOf, findMentions, MAX_MENTIONS, mentionProblems, type ResourceMention } from './catalog'
import type { Store } from '../store/types'
import {
  describeTarget,
  isStdio,
  loadConfigFile,
  mergeServers,
  readProjectConfig,
  userConfigPath,
  type McpServerConfig,
  type ProjectConfig,
} from './config'
import type { McpConnection } from './connection'
import { httpTarget, logPath, readLogTail } from './launch'
import type { Elicit } from './elicitation'
import type { OpenUrl } from './oauth/flow'
import { OAuthStore, type Sealer } from './oauth/store'
import {
  decideProject,
  isServerEnabled,
  isToolAllowed,
  isToolEnabled,
  projectChanges,
  projectState,
  readMcpSettings,
  toggle,
  toolKey,
  updateMcpSettings,
} from './settings'
import { expandPromptCommand, promptsOf, type ServerPrompt } from './prompts'
import { instructionsSection, READ_RESOURCE, readResourceInfo } from './resources'
import { mcpTool, qualifiedName, type McpTool } from './tools'
import { pushAll } from '../../shared/arrays'

/*
 * The MCP servers of one project (docs/mcp.md): which are configured, which may run
 * (enabled, and for a project's `.mcp.json`, approved), their connections and tools.
 * Servers start when a session starts, all at once with a bounded wait, because the
 * first request must already list their tools; one that fails is reported and the
 * session goes on without it. They stop with the session (or with the app).
 */

export interface McpManagerOptions {
  dataDir: string
  /** The project; its `.mcp.json` is read (and started once approved). */
  repo?: string
  store: Pick<Store, 'getSetting' | 'setSetting'>
  /** `--mcp-config FILE` (repeatable). */
  cliConfigs?: readonly string[]
  env?: NodeJS.ProcessEnv
  /** How long each server may take to answer `initialize` and `tools/list` (default 30 s). */
  startTimeoutMs?: number
  callTimeoutMs?: number
  maxRestarts?: number
  /** A server's state or tool list changed. */
  onStatus?(server: string, state: McpServerState): void
  /** Encrypts stored OAuth sign-ins (the OS keychain on the desktop); without it a 0600 file. */
  oauthSealer?: Sealer
  /** An https URL serving Stepwise's OAuth client metadata document (Client ID Metadata Documents). */
  clientMetadataUrl?: string
  /**
   * Lets servers run the browser sign-in whenever they ask (a 401, or 403 for more permissions),
   * showing the URL this way. Without it a server that asks needs `signIn()` (or `mcp login`).
   */
  signIn?: OpenUrl
  /** Asks the user a server's question (elicitation): the CLI's terminal prompt, the app's card. */
  elicit?: Elicit
}

export const DEFAULT_START_TIMEOUT_MS = 30_000

let connectionModule: Promise<typeof import('./connection')> | undefined
/**
 * The connection side, with the MCP SDK and its schema validator (~0.2 s and ~15 MB to load),
 * loads when the first server starts: a session without MCP servers never loads it.
 */
const loadConnections = () => (connectionModule ??= import('./connection'))

export class McpManager {
  /** Problems with configuration files, each naming the file and what is wrong. */
  configErrors: string[] = []
  /** Keys ignored in configuration files (written for other clients), one message per server. */
  configWarnings: string[] = []
  private configured: McpServerConfig[] = []
  private project: ProjectConfig | null = null
  private readonly connections = new Map<string, McpConnection>()
  private readonly toolCache = new WeakMap<object, McpTool[]>()
  readonly oauth: OAuthStore
  /** Servers the user is signing in to right now, with how the URL is shown. */
  private readonly signingIn = new Map<string, OpenUrl>()

  constructor(private readonly opts: McpManagerOptions) {
    this.oauth = new OAuthStore(opts.dataDir, opts.oauthSealer)
    this.reload()
  }

  private settings(): McpSettings {
    return readMcpSettings(this.opts.store)
  }

  /** Reads the configuration files again (a connection whose config is unchanged is kept). */
  reload(): void {
    const user = loadConfigFile(userConfigPath(this.opts.dataDir), 'user', { optional: true })
    const cli = (this.opts.cliConfigs ?? []).map((file) => loadConfigFile(file, 'cli'))
    this.project = this.opts.repo ? readProjectConfig(this.opts.repo) : null
    const project = this.project?.loaded ?? { servers: [], errors: [], warnings: [] }
    this.configErrors = [...user.errors, ...cli.flatMap((c) => c.errors), ...project.errors]
    this.configWarnings = [...user.warnings, ...cli.flatMap((c) => c.warnings), ...project.warnings]
    this.configured = mergeServers(
      user.servers,
      cli.flatMap((c) => c.servers),
      project.servers,
    )
  }

  private projectApproved(): boolean {
    return projectState(this.settings(), this.opts.repo ?? '', this.project) === 'approved'
  }

  /** Why a project server may not be spawned now (its file or what it runs changed), or undefined. */
  private projectLaunchRefusal(): string | undefined {
    const repo = this.opts.repo
    const now = repo ? readProjectConfig(repo, this.opts.env) : null
    const settings = this.settings()
    if (repo && projectState(settings, repo, now) === 'approved') return undefined
    const changes = projectChanges(settings, repo ?? '', now)
    return `the project's .mcp.json${changes.length ? ` or a file its servers run changed since you approved it: ${changes.join(', ')}` : ' is not approved'}. Look at it and approve it again (stepwise mcp approve, or the app's MCP view).`
  }

  private mayRun(server: McpServerConfig, settings = this.settings()): boolean {
    if (!isServerEnabled(settings, server.name, server.options?.disabled)) return false
    return server.source !== 'project' || this.projectApproved()
  }

  private async connectionFor(server: McpServerConfig): Promise<McpConnection> {
    const { McpConnection } = await loadConnections()
    let conn = this.connections.get(server.name)
    if (conn && JSON.stringify(conn.config) !== JSON.stringify(server)) {
      void conn.stop()
      conn = undefined
    }
    if (!conn) {
      const created = new McpConnection(server, {
        dataDir: this.opts.dataDir,
        repo: this.opts.repo,
        env: this.opts.env,
        startTimeoutMs: this.opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
        callTimeoutMs: this.opts.callTimeoutMs,
        maxRestarts: this.opts.maxRestarts,
        onChange: () => this.opts.onStatus?.(server.name, created.state),
        elicit: this.opts.elicit,
        auth: { store: this.oauth, clientMetadataUrl: this.opts.clientMetadataUrl },
        signIn: () => this.signingIn.get(server.name) ?? this.opts.signIn,
        // Checked at every spawn, restarts after a crash included: the script may have changed.
        launchRefusal: server.source === 'project' ? () => this.projectLaunchRefusal() : undefined,
      })
      conn = created
      this.connections.set(server.name, conn)
    }
    return conn
  }

  /** Starts every server that may run and waits until each is ready or has failed. */
  async start(): Promise<void> {
    const settings = this.settings()
    const runnable = this.configured.filter((s) => this.mayRun(s, settings))
    // Servers no longer configured or allowed stop.
    for (const [name, conn] of this.connections) if (!runnable.some((s) => s.name === name)) await conn.stop()
    await Promise.all(
      runnable.map(async (s) => {
        const conn = await this.connectionFor(s)
        if (conn.state !== 'ready') await conn.start()
      }),
    )
  }

  /** Servers that failed to start (with the command they ran and their stderr) or need sign-in (with the command that does it). */
  failures(): string[] {
    return [...this.connections.values()]
      .filter((c) => c.state === 'failed' || c.state === 'needs-sign-in')
      .map((c) => c.error ?? '')
  }

  /** The tools offered to the model: the enabled tools of servers that are up (or coming back). */
  tools(): McpTool[] {
    const settings = this.settings()
    const out: McpTool[] = []
    for (const conn of this.connections.values()) {
      // A server restarting after a crash keeps its tools: a call waits for it to be back.
      const live = conn.state === 'ready' || conn.state === 'starting'
      if (!live || !this.mayRun(conn.config, settings)) continue
      let tools = this.toolCache.get(conn.tools)
      if (!tools) {
        tools = conn.tools.map((info) => mcpTool(conn.config.name, info, conn))
        this.toolCache.set(conn.tools, tools)
      }
      pushAll(
        out,
        tools.filter((t) => isToolEnabled(settings, t.mcp.server, t.mcp.tool)),
      )
      const reader = this.resourceTool(conn)
      if (reader && isToolEnabled(settings, conn.config.name, READ_RESOURCE)) out.push(reader)
    }
    return out
  }

  /** A server's resources for the model (./resources.ts), unless it has a tool of that name itself. */
  private resourceTool(conn: McpConnection): McpTool | undefined {
    if (!conn.hasResources || conn.tools.some((t) => t.name === READ_RESOURCE)) return undefined
    let cached = this.toolCache.get(conn.resources)?.[0]
    if (!cached) {
      cached = mcpTool(conn.config.name, readResourceInfo(conn.resources, conn.templates), {
        callTool: (_name, args, opts) => conn.readResource(args.uri, opts),
      })
      this.toolCache.set(conn.resources, [cached])
    }
    return cached
  }

  /** Ready servers that may run: what prompts, the catalog and mentions read. */
  private ready(): McpConnection[] {
    return [...this.connections.values()].filter((c) => c.state === 'ready' && this.mayRun(c.config))
  }

  /** A ready server's read_resource tool, when the model has it (it offers resources, the tool is on). */
  private reader(server: string): McpTool | undefined {
    const conn = this.ready().find((c) => c.config.name === server)
    if (!conn || !isToolEnabled(this.settings(), server, READ_RESOURCE)) return undefined
    return this.resourceTool(conn)
  }

  private whyNoReader(server: string): string {
    const conn = this.connections.get(server)
    const state = this.view().servers.find((s) => s.name === server)?.state ?? 'stopped'
    if (state !== 'ready') return `MCP server "${server}" is ${state}; start it in the MCP view first.`
    if (!conn?.hasResources) return `MCP server "${server}" offers no resources.`
    return `the read_resource tool of MCP server "${server}" is turned off in the MCP view.`
  }

  /** What the app's message box offers: the ready servers' prompts, and resources the model may read. */
  catalog(): McpCatalog {
    return catalogOf(
      this.ready().map((c) => {
        const readable = this.reader(c.config.name) !== undefined
        return {
          name: c.config.name,
          prompts: c.prompts,
          resources: readable ? c.resources : [],
          templates: readable ? c.templates : [],
        }
      }),
    )
  }

  /**
   * The `@SERVER:URI` mentions of a message (of configured servers; other `@…` is text), each with
   * the tool that reads it, and why any cannot be read now (the service refuses such a message).
   */
  resourceMentions(text: string): { mentions: (ResourceMention & { tool: string })[]; problems: string[] } {
    const found = findMentions(
      text,
      this.configured.map((s) => s.name),
    )
    if (found.length === 0) return { mentions: [], problems: [] }
    const problems = mentionProblems(
      found,
      (server) => this.reader(server)?.name,
      (server) => this.whyNoReader(server),
    )
    const mentions = found.flatMap((m) => {
      const tool = this.reader(m.server)
      return tool ? [{ ...m, tool: tool.name }] : []
    })
    return { mentions: mentions.slice(0, MAX_MENTIONS), problems }
  }

  /** The running servers' prompts, as the slash commands that run them. */
  prompts(): ServerPrompt[] {
    return promptsOf(this.ready())
  }

  /** `/mcp__SERVER__PROMPT args` → the prompt's text (./prompts.ts); any other text as it is. */
  expandPrompt(text: string): Promise<string> {
    return expandPromptCommand(this.ready(), text)
  }

  /** The running servers' instructions, for the system prompt (bounded and marked as theirs). */
  instructions(): string | undefined {
    const servers = [...this.connections.values()]
      .filter((c) => c.state === 'ready' && c.instructions && this.mayRun(c.config))
      .map((c) => ({ name: c.config.name, text: c.instructions! }))
    return instructionsSection(servers)
  }

  /** Whether `auto-edit` may run this tool without asking (the user's setting). */
  isAllowed(server: string, tool: string): boolean {
    const info = this.connections.get(server)?.tools.find((t) => t.name === tool)
    return isToolAllowed(this.settings(), {
      server,
      tool,
      autoApprove: this.configured.find((s) => s.name === server)?.options?.autoApprove,
      destructive: info?.annotations?.destructiveHint === true,
    })
  }

  view(): McpListOutput {
    const settings = this.settings()
    const repo = this.opts.repo ?? ''
    const projectFile = this.project
    const approved = this.projectApproved()
    const servers: McpServerView[] = this.configured.map((server) => {
      const conn = this.connections.get(server.name)
      const enabled = isServerEnabled(settings, server.name, server.options?.disabled)
      const state: McpServerState = !enabled
        ? 'disabled'
        : server.source === 'project' && !approved
          ? 'awaiting-approval'
          : (conn?.state ?? 'stopped')
      return {
        name: server.name,
        source: server.source,
        transport: isStdio(server.spec) ? 'stdio' : 'http',
        target: describeTarget(server.spec),
        state,
        ...(conn?.error && (state === 'failed' || state === 'needs-sign-in') ? { error: conn.error } : {}),
        enabled,
        sandbox: isStdio(server.spec) && server.spec.sandbox,
        allowed: settings.allowedServers.includes(server.name),
        signedIn: !isStdio(server.spec) && this.oauth.signedIn(server.name, this.oauthKey(server)),
        tools: (conn?.tools ?? []).map((t) => {
          const tool = mcpTool(server.name, t, conn!)
          return {
            name: t.name,
            qualified: qualifiedName(server.name, t.name),
            description: tool.mcp.description,
            readOnly: tool.mcp.readOnly,
            enabled: isToolEnabled(settings, server.name, t.name),
            allowed: isToolAllowed(settings, {
              server: server.name,
              tool: t.name,
              autoApprove: server.options?.autoApprove,
              destructive: t.annotations?.destructiveHint === true,
            }),
          }
        }),
      }
    })
    const project = projectFile
      ? {
          path: projectFile.path,
          hash: projectFile.hash,
          state: projectState(settings, repo, projectFile),
          servers: projectFile.loaded.servers.map((s) => s.name),
          files: Object.keys(projectFile.files).sort(),
          changes: projectChanges(settings, repo, projectFile),
        }
      : null
    return { servers, project }
  }

  private known(server: string): McpServerConfig {
    const found = this.configured.find((s) => s.name === server)
    if (!found) throw new Error(`No MCP server named "${server}" is configured.`)
    return found
  }

  async setEnabled(server: string, tool: string | undefined, enabled: boolean): Promise<void> {
    const config = this.known(server)
    updateMcpSettings(this.opts.store, (s) => {
      if (tool) s.disabledTools = toggle(s.disabledTools, toolKey(server, tool), !enabled)
      else {
        s.disabledServers = toggle(s.disabledServers, server, !enabled)
        s.enabledServers = toggle(s.enabledServers, server, enabled && config.options?.disabled === true)
      }
    })
    if (tool) this.opts.onStatus?.(server, this.connections.get(server)?.state ?? 'stopped')
    else if (!enabled) await this.connections.get(server)?.stop()
    else if (this.mayRun(config)) await (await this.connectionFor(config)).start()
  }

  setAllowed(server: string, tool: string | undefined, allowed: boolean): void {
    this.known(server)
    updateMcpSettings(this.opts.store, (s) => {
      if (tool) s.allowedTools = toggle(s.allowedTools, toolKey(server, tool), allowed)
      else s.allowedServers = toggle(s.allowedServers, server, allowed)
    })
    this.opts.onStatus?.(server, this.connections.get(server)?.state ?? 'stopped')
  }

  /** Approves (or rejects) the project's `.mcp.json` as it was shown: `hash` must match the file now. */
  async approveProject(hash: string, approve: boolean): Promise<void> {
    this.reload()
    if (!this.opts.repo || !this.project) throw new Error('This project has no .mcp.json to approve.')
    if (this.project.hash !== hash)
      throw new Error(
        `${this.project.path} changed since it was shown; look at it again before approving it.`,
      )
    decideProject(this.opts.store, this.opts.repo, this.project, approve)
    await this.start()
    for (const name of this.project.loaded.servers.map((s) => s.name))
      this.opts.onStatus?.(name, this.connections.get(name)?.state ?? 'stopped')
  }

  /** The URL a server's sign-in is stored under (its `url` with the environment expanded). */
  private oauthKey(server: McpServerConfig): string {
    if (isStdio(server.spec)) return ''
    try {
      return httpTarget({ ...server, spec: server.spec }, this.opts.env ?? process.env).url.href
    } catch {
      return server.spec.url
    }
  }

  /**
   * Signs in to an HTTP server: restarts its connection with the browser flow allowed (`open`
   * shows the authorization URL) and waits until it is ready, or says why not.
   */
  async signIn(server: string, open: OpenUrl): Promise<McpServerView> {
    const config = this.known(server)
    if (isStdio(config.spec))
      throw new Error(`MCP server "${server}" runs a command (stdio); there is nothing to sign in to.`)
    if (!this.mayRun(config)) throw new Error(`MCP server "${server}" is disabled or awaiting approval.`)
    this.signingIn.set(server, open)
    try {
      await (await this.connectionFor(config)).restart()
    } finally {
      this.signingIn.delete(server)
    }
    return this.view().servers.find((s) => s.name === server)!
  }

  /** Forgets a server's sign-in (tokens and registration); true when there was one. */
  async signOut(server: string): Promise<boolean> {
    this.known(server)
    const had = this.oauth.remove(server)
    await this.connections.get(server)?.stop()
    this.opts.onStatus?.(server, 'stopped')
    return had
  }

  async restart(server: string): Promise<void> {
    const config = this.known(server)
    if (!this.mayRun(config)) throw new Error(`MCP server "${server}" is disabled or awaiting approval.`)
    await (await this.connectionFor(config)).restart()
  }

  log(server: string): string {
    this.known(server)
    return readLogTail(logPath(this.opts.dataDir, server))
  }

  async stop(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.stop()))
  }
}
