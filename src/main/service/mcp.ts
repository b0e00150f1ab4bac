import type { CommandInput, CommandOutput } from '../../shared/protocol'
import { McpManager } from '../mcp/manager'
import type { OpenUrl } from '../mcp/oauth/flow'
import { systemOpener } from '../mcp/oauth/opener'
import type { ServiceContext } from './context'
import { ElicitationDesk } from './mcp-elicitations'
import type { MentionedResource } from '../agent/mentions'
import { parsePromptCommand } from '../mcp/prompts'
import { ServiceError } from './service-error'
import { errorMessage } from '../../shared/errors'

type ListOutput = CommandOutput<'mcp/list'>

/*
 * The app's MCP servers (docs/mcp.md): one manager per project, created when the project
 * is opened or a session of it runs, its servers kept running across the chat's turns and
 * stopped when the app quits. The MCP view shows the open project's servers.
 */

export interface McpHubOptions {
  /** `stepwise serve --mcp-config FILE` (repeatable). */
  cliConfigs?: readonly string[]
  startTimeoutMs?: number
  /** How a sign-in's authorization URL is opened (default: the system's browser). */
  openUrl?: OpenUrl
}

export class McpHub {
  private readonly managers = new Map<string, McpManager>()
  private current: string | undefined
  private readonly questions: ElicitationDesk

  constructor(
    private readonly ctx: ServiceContext,
    private readonly opts: McpHubOptions = {},
  ) {
    this.current = ctx.startProject
    this.questions = new ElicitationDesk((m) => ctx.broadcast(m))
  }

  private manager(repo: string | undefined): McpManager {
    const key = repo ?? ''
    let manager = this.managers.get(key)
    if (!manager) {
      manager = new McpManager({
        dataDir: this.ctx.dataDir,
        repo,
        store: this.ctx.store,
        cliConfigs: this.opts.cliConfigs,
        startTimeoutMs: this.opts.startTimeoutMs,
        onStatus: (server, state) => this.ctx.broadcast({ type: 'host.mcp-status', server, state }),
        oauthSealer: this.ctx.keys.sealer,
        elicit: this.questions.elicit,
      })
      this.managers.set(key, manager)
    }
    return manager
  }

  /** A project's manager as it stands, servers not started (the message box's view of them). */
  managerOf(repo: string): McpManager {
    return this.manager(repo)
  }

  /** The project the MCP view shows (the last one opened); its servers start in the background. */
  setProject(repo: string): void {
    this.current = repo
    const manager = this.manager(repo)
    manager.reload()
    void manager.start()
  }

  /** A session's servers, started (bounded wait) before its turn: the first request lists their tools. */
  async forSession(repo: string): Promise<McpManager> {
    const manager = this.manager(repo)
    manager.reload()
    await manager.start()
    return manager
  }

  private list(): ListOutput {
    const manager = this.manager(this.current)
    manager.reload()
    return manager.view()
  }

  /**
   * Starts a sign-in and answers once the authorization URL is known (the browser opens at it), or
   * once it ended without one; its end reaches the app as a `host.mcp-status` notice.
   */
  private async signIn(manager: McpManager, server: string): Promise<CommandOutput<'mcp/signIn'>> {
    let urlKnown: (url: string | undefined) => void = () => {}
    const known = new Promise<string | undefined>((resolve) => (urlKnown = resolve))
    const open = this.opts.openUrl ?? systemOpener(() => {})
    const done = manager.signIn(server, async (url, name) => {
      urlKnown(url.href)
      await open(url, name)
    })
    // Errors before the browser step (disabled, a stdio server) are the command's; later ones show on the server.
    let failure: unknown
    done.catch((err: unknown) => (failure = err)).finally(() => urlKnown(undefined))
    const signInUrl = await known
    if (!signInUrl) await done.catch(() => undefined)
    if (failure) throw failure
    return { ...this.list(), ...(signInUrl ? { signInUrl } : {}) }
  }

  handlers() {
    const current = () => this.manager(this.current)
    return {
      'mcp/list': (): ListOutput => this.list(),
      'mcp/catalog': () => current().catalog(),
      'mcp/setEnabled': async (input: CommandInput<'mcp/setEnabled'>): Promise<ListOutput> => {
        await current().setEnabled(input.server, input.tool, input.enabled)
        return this.list()
      },
      'mcp/setAllowed': (input: CommandInput<'mcp/setAllowed'>): ListOutput => {
        current().setAllowed(input.server, input.tool, input.allowed)
        return this.list()
      },
      'mcp/approveProject': async (input: CommandInput<'mcp/approveProject'>): Promise<ListOutput> => {
        if (!this.current) throw new Error('Open a project first.')
        await current().approveProject(input.hash, input.approve)
        return this.list()
      },
      'mcp/restart': async (input: CommandInput<'mcp/restart'>): Promise<ListOutput> => {
        await current().restart(input.server)
        return this.list()
      },
      'mcp/signIn': (input: CommandInput<'mcp/signIn'>) => this.signIn(current(), input.server),
      'mcp/signOut': async (input: CommandInput<'mcp/signOut'>): Promise<ListOutput> => {
        await current().signOut(input.server)
        return this.list()
      },
      'mcp/log': (input: CommandInput<'mcp/log'>) => ({ text: current().log(input.server) }),
      'mcp/elicitations': () => ({ pending: this.questions.list() }),
      'mcp/answerElicitation': (input: CommandInput<'mcp/answerElicitation'>) => ({
        pending: this.questions.answer(input),
      }),
    }
  }

  async close(): Promise<void> {
    this.questions.cancelAll()
    await Promise.all([...this.managers.values()].map((m) => m.stop()))
  }
}

/**
 * The app's message as its turn starts it (docs/mcp.md#in-the-app): `/mcp__SERVER__PROMPT args`
 * becomes the prompt's messages (the CLI's `edit` does the same, McpManager.expandPrompt); any
 * other message keeps its words, with the `@SERVER:URI` resources it names to read and attach.
 * A prompt that cannot run or a resource that cannot be read refuses the message, saying why.
 */
export async function turnMessage(
  manager: McpManager,
  text: string,
): Promise<{ message: string; resources: MentionedResource[] }> {
  if (parsePromptCommand(text)) {
    try {
      return { message: await manager.expandPrompt(text), resources: [] }
    } catch (err) {
      throw new ServiceError(errorMessage(err))
    }
  }
  const { mentions, problems } = manager.resourceMentions(text)
  if (problems.length > 0) throw new ServiceError(problems.join(' '))
  return { message: text, resources: mentions }
}

/**
 * A message for the running turn's next step: a prompt or a resource mention is what starts a
 * turn (it is read or expanded first), so such a message waits for the turn to end.
 */
export function refuseQueued(manager: McpManager | undefined, text: string): void {
  if (parsePromptCommand(text))
    throw new ServiceError(
      'A server prompt runs as its own turn: send it once this turn ends, or press Stop first.',
    )
  if (manager && manager.resourceMentions(text).mentions.length > 0)
    throw new ServiceError(
      'A message that attaches MCP resources (@server:uri) starts its own turn: send it once this turn ends, or press Stop first.',
    )
}

const hubs = new WeakMap<ServiceContext, McpHub>()

export function createMcpHub(ctx: ServiceContext, opts: McpHubOptions = {}): McpHub {
  const hub = new McpHub(ctx, opts)
  hubs.set(ctx, hub)
  return hub
}

/** The service's hub (sessions use it to give a turn its project's MCP tools). */
export function mcpHubOf(ctx: ServiceContext): McpHub | undefined {
  return hubs.get(ctx)
}
