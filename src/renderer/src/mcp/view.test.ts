import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { closePanel, isPanelOpen, openPanel } from '../panels/panelState'
import { useApp } from '../state/store'
import { pendingProject, server } from './fixtures'
import { McpView } from './McpDialog'
import { SignInNoticeView } from './SignIn'
import {
  checkProjectFile,
  closeMcp,
  MCP_PANEL,
  decideProject,
  onMcpNotice,
  refreshMcp,
  restartMcp,
  setMcpAllowed,
  setMcpEnabled,
  setMcpService,
  signInMcp,
  useMcpUi,
  type McpCall,
} from './mcpState'
import type { McpCommand, McpList } from './types'

/**
 * The view against a fake MCP service that keeps the contract's rules (the reply is the whole new
 * list; a project hash that does not match is refused), and its markup rendered from a list.
 */
function fakeService(initial: McpList): { call: McpCall; calls: [McpCommand, unknown][]; list: McpList } {
  const state = { list: structuredClone(initial) }
  const calls: [McpCommand, unknown][] = []
  const find = (name: string) => {
    const s = state.list.servers.find((x) => x.name === name)
    if (!s) throw new Error(`No MCP server named ${name}.`)
    return s
  }
  const call = (async (command: McpCommand, input: Record<string, unknown>) => {
    calls.push([command, input])
    await Promise.resolve()
    switch (command) {
      case 'mcp/list':
        break
      case 'mcp/setEnabled':
      case 'mcp/setAllowed': {
        const key = command === 'mcp/setEnabled' ? 'enabled' : 'allowed'
        const s = find(input.server as string)
        const target = input.tool ? s.tools.find((t) => t.name === input.tool) : s
        if (!target) throw new Error(`No tool ${String(input.tool)}.`)
        target[key] = input[key] as boolean
        break
      }
      case 'mcp/restart':
        find(input.server as string).state = 'starting'
        break
      case 'mcp/approveProject': {
        const p = state.list.project!
        if (input.hash !== p.hash) throw new Error('The .mcp.json changed since it was shown.')
        p.state = input.approve ? 'approved' : 'rejected'
        for (const s of state.list.servers)
          if (s.source === 'project') s.state = input.approve ? 'starting' : 'awaiting-approval'
        break
      }
      case 'mcp/log':
        return { text: 'started\n' }
      case 'mcp/signIn':
        find(input.server as string).state = 'starting'
        return { ...structuredClone(state.list), signInUrl: 'http://127.0.0.1:9/authorize?client_id=c' }
      case 'mcp/signOut':
        find(input.server as string).signedIn = false
        break
    }
    return structuredClone(state.list)
  }) as McpCall
  return {
    call,
    calls,
    get list() {
      return state.list
    },
  }
}

beforeEach(() => {
  useMcpUi.setState({ list: null, error: null, busy: {}, signInUrls: {} })
  closePanel(MCP_PANEL)
  useApp.setState({ toasts: [] })
})
afterEach(() => setMcpService(null))

describe('MCP view state', () => {
  it('switches a tool off through the core and shows the list it answers', async () => {
    const fake = fakeService(pendingProject())
    setMcpService(fake.call)
    await refreshMcp()
    await setMcpEnabled('everything', false, 'echo')
    expect(fake.calls.at(-1)).toEqual([
      'mcp/setEnabled',
      { server: 'everything', tool: 'echo', enabled: false },
    ])
    const echo = useMcpUi.getState().list!.servers[0].tools.find((t) => t.name === 'echo')!
    expect(echo.enabled).toBe(false)
    expect(useMcpUi.getState().busy).toEqual({})
    await setMcpAllowed('everything', true)
    expect(useMcpUi.getState().list!.servers[0].allowed).toBe(true)
    await restartMcp('everything')
    expect(useMcpUi.getState().list!.servers[0].state).toBe('starting')
  })

  it('keeps the list as it was when the core refuses a change', async () => {
    const fake = fakeService(pendingProject())
    setMcpService(fake.call)
    await refreshMcp()
    const before = useMcpUi.getState().list
    await setMcpEnabled('nope', false)
    expect(useMcpUi.getState().list).toBe(before)
    expect(useMcpUi.getState().busy).toEqual({})
  })

  it('approves the project file with the hash it was shown', async () => {
    const fake = fakeService(pendingProject())
    setMcpService(fake.call)
    await refreshMcp()
    await decideProject(useMcpUi.getState().list!.project!.hash, true)
    expect(useMcpUi.getState().list!.project!.state).toBe('approved')
    expect(useMcpUi.getState().list!.servers[1].state).toBe('starting')
  })

  it('reads the list once more after a burst of refreshes, not once per call', async () => {
    const fake = fakeService(pendingProject())
    setMcpService(fake.call)
    await Promise.all([refreshMcp(), refreshMcp(), refreshMcp(), refreshMcp()])
    expect(fake.calls.filter(([c]) => c === 'mcp/list')).toHaveLength(2)
  })

  it('refreshes on host.mcp-status while the dialog is open, and only then', async () => {
    const fake = fakeService(pendingProject())
    setMcpService(fake.call)
    expect(onMcpNotice({ type: 'host.sessions-changed', sessionId: 's1' })).toBe(false)
    expect(onMcpNotice({ type: 'host.mcp-status', server: 'notion', state: 'starting' })).toBe(true)
    expect(fake.calls).toHaveLength(0)
    openPanel(MCP_PANEL)
    onMcpNotice({ type: 'host.mcp-status', server: 'notion', state: 'starting' })
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(fake.calls).toEqual([['mcp/list', {}]])
    expect(useMcpUi.getState().list).toEqual(fake.list)
    closeMcp()
  })

  it('tells of a pending project file with a toast whose action opens the view', async () => {
    setMcpService(fakeService(pendingProject()).call)
    await checkProjectFile()
    const [t] = useApp.getState().toasts
    expect(t.text).toContain('(memory)')
    expect(t.action?.label).toBe('Review')
    t.action!.run()
    expect(isPanelOpen(MCP_PANEL)).toBe(true)
    closeMcp()
  })

  it('says nothing when the project has no file waiting', async () => {
    const list = pendingProject()
    list.project = { ...list.project!, state: 'approved' }
    setMcpService(fakeService(list).call)
    await checkProjectFile()
    expect(useApp.getState().toasts).toEqual([])
  })
})

describe('MCP sign-in', () => {
  const remote = () =>
    server({
      name: 'notion',
      transport: 'http',
      target: 'https://mcp.notion.com/mcp',
      state: 'needs-sign-in',
      error:
        'MCP server "notion" needs sign-in (URL: https://mcp.notion.com/mcp): it answered 401 Unauthorized.',
      tools: [],
    })

  it('shows the 401 with a Sign in button, then the sign-in page link until the sign-in ends', async () => {
    const list = { servers: [remote()], project: null }
    const html = renderToStaticMarkup(createElement(McpView, { list, error: null }))
    expect(html).toContain('needs sign-in (URL: https://mcp.notion.com/mcp)')
    expect(html.match(/data-testid="mcp-sign-in"/g)).toHaveLength(2)
    const fake = fakeService(list)
    setMcpService(fake.call)
    await signInMcp('notion')
    expect(fake.calls).toEqual([['mcp/signIn', { server: 'notion' }]])
    expect(useMcpUi.getState().signInUrls).toEqual({ notion: 'http://127.0.0.1:9/authorize?client_id=c' })
    // (Static markup reads the store's first state, so the notice is rendered with what it reads.)
    const waiting = renderToStaticMarkup(
      createElement(SignInNoticeView, {
        server: useMcpUi.getState().list!.servers[0],
        url: useMcpUi.getState().signInUrls.notion,
      }),
    )
    expect(waiting).toContain('data-testid="mcp-signin-link"')
    onMcpNotice({ type: 'host.mcp-status', server: 'notion', state: 'ready' })
    expect(useMcpUi.getState().signInUrls).toEqual({})
  })

  it('offers Sign out once signed in, and nothing for a stdio server', () => {
    const signedIn = renderToStaticMarkup(
      createElement(McpView, {
        list: {
          servers: [remote()].map((s) => ({ ...s, state: 'ready' as const, signedIn: true })),
          project: null,
        },
        error: null,
      }),
    )
    expect(signedIn).toContain('data-testid="mcp-sign-out"')
    expect(signedIn).not.toContain('data-testid="mcp-sign-in"')
    const stdio = renderToStaticMarkup(
      createElement(McpView, { list: { servers: [server()], project: null }, error: null }),
    )
    expect(stdio).not.toContain('mcp-sign-')
  })
})

describe('MCP view markup', () => {
  const render = (list: McpList | null, error: string | null = null): string =>
    renderToStaticMarkup(createElement(McpView, { list, error }))

  it('shows a server description as plain text, never as markup', () => {
    const hostile = server()
    hostile.tools[0] = {
      ...hostile.tools[0],
      description: '<img src=x onerror="alert(1)"> **bold** [link](javascript:alert(1))',
    }
    const html = render({ servers: [hostile], project: null })
    expect(html).not.toContain('<img')
    expect(html).toContain(
      '&lt;img src=x onerror=&quot;alert(1)&quot;&gt; **bold** [link](javascript:alert(1))',
    )
    expect(html).not.toContain('<a ')
  })

  it('folds a long description behind Show more', () => {
    const long = server()
    long.tools[0] = { ...long.tools[0], description: 'word '.repeat(200) }
    const html = render({ servers: [long], project: null })
    expect(html).toContain('aria-expanded="false"')
    expect(html).toContain('Show more')
    expect(html).not.toContain('word '.repeat(60))
  })

  it('names every switch for assistive technology', () => {
    const html = render({ servers: [server()], project: null })
    const labels = [...html.matchAll(/role="switch"[^>]*aria-label="([^"]+)"/g)].map((m) => m[1])
    expect(labels).toEqual([
      'Enable server everything',
      'Allow every tool of everything without asking',
      'Enable tool echo of everything',
      'Allow tool echo of everything without asking',
      'Enable tool add of everything',
      'Allow tool add of everything without asking',
    ])
    expect(html).toContain('aria-label="Restart everything"')
  })

  it('shows why a server failed', () => {
    const html = render({
      servers: [
        server({ state: 'failed', error: 'spawn nope ENOENT: the command was not found', tools: [] }),
      ],
      project: null,
    })
    expect(html).toContain('data-state="failed"')
    expect(html).toContain('spawn nope ENOENT: the command was not found')
  })

  it('folds a long tool list so the other servers stay in sight', () => {
    const many = server()
    many.tools = Array.from({ length: 7 }, (_, i) => ({ ...many.tools[0], name: `t${i}` }))
    expect(render({ servers: [many], project: null })).toMatch(/<details class="mcp-tools-block"><summary/)
    expect(render({ servers: [server()], project: null })).toContain(
      '<details class="mcp-tools-block" open="">',
    )
  })

  it('offers Start for a server no session has started, Restart otherwise', () => {
    expect(render({ servers: [server({ state: 'stopped', tools: [] })], project: null })).toContain(
      'aria-label="Start everything"',
    )
    expect(render({ servers: [server({ state: 'failed', tools: [] })], project: null })).toContain(
      'aria-label="Restart everything"',
    )
  })

  it('asks about a pending project file, naming the command it would run', () => {
    const html = render(pendingProject())
    expect(html).toContain('data-testid="mcp-project-approval"')
    expect(html).toContain('npx -y @modelcontextprotocol/server-memory')
    expect(html).toContain('data-testid="mcp-project-approve"')
    expect(html).toContain('data-testid="mcp-project-reject"')
  })

  it('says how to add servers when there are none, and what went wrong when listing failed', () => {
    expect(render({ servers: [], project: null })).toContain('data-testid="mcp-empty"')
    expect(render(null, 'Unknown command mcp/list')).toContain('Unknown command mcp/list')
  })
})
