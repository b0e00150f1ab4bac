import { describe, expect, it } from 'vitest'
import { pendingProject, server } from './fixtures'
import {
  logTail,
  needsDecision,
  pendingToastText,
  plainText,
  previewText,
  projectPrompt,
  stateBadge,
  summaryLine,
  toolCount,
} from './model'

describe('MCP view model', () => {
  it('gives every server state a badge of its own tone', () => {
    expect(stateBadge('ready')).toEqual({ label: 'ready', tone: 'ok' })
    expect(stateBadge('failed')).toEqual({ label: 'failed', tone: 'error' })
    expect(stateBadge('awaiting-approval')).toEqual({ label: 'awaiting approval', tone: 'warn' })
    expect(stateBadge('starting').tone).toBe('busy')
  })

  it('shows a short description whole and folds a long one at a word', () => {
    expect(previewText('Echoes back the input')).toEqual({ text: 'Echoes back the input', more: false })
    const long = 'word '.repeat(100)
    const preview = previewText(long, 50)
    expect(preview.more).toBe(true)
    expect(preview.text).toBe(`${'word '.repeat(10).trim()}…`)
    // No space near the limit: cut at the limit.
    expect(previewText('x'.repeat(80), 50)).toEqual({ text: `${'x'.repeat(50)}…`, more: true })
  })

  it('drops control and bidi characters from untrusted text but keeps lines and tabs', () => {
    expect(plainText('a\u001b[31mred\u001b[0m\r\nb\tc\u202Egnp.exe')).toBe('a[31mred[0m\nb\tcgnp.exe')
  })

  it('names the servers and commands a pending project file would start', () => {
    expect(projectPrompt(pendingProject())).toEqual({
      title: "This project's .mcp.json would start 1 MCP server:",
      servers: [{ name: 'memory', target: 'npx -y @modelcontextprotocol/server-memory', transport: 'stdio' }],
      changes: [],
    })
    const changed = pendingProject()
    changed.project = {
      ...changed.project!,
      state: 'changed',
      servers: ['memory', 'gone'],
      changes: ['tools/mcp-server.sh (changed)'],
    }
    expect(projectPrompt(changed)).toEqual({
      title:
        "This project's .mcp.json or a file its servers run changed since you approved it. Approving it starts 2 MCP servers:",
      changes: ['tools/mcp-server.sh (changed)'],
      servers: [
        { name: 'memory', target: 'npx -y @modelcontextprotocol/server-memory', transport: 'stdio' },
        { name: 'gone', target: '', transport: null },
      ],
    })
  })

  it('asks nothing of an approved, rejected or absent project file', () => {
    for (const state of ['approved', 'rejected', 'none'] as const) {
      const list = pendingProject()
      list.project = { ...list.project!, state }
      expect(projectPrompt(list)).toBeNull()
      expect(pendingToastText(list)).toBeNull()
      expect(needsDecision(list.project)).toBe(false)
    }
    expect(needsDecision(null)).toBe(false)
  })

  it('tells of a pending project file in a toast naming its servers', () => {
    expect(pendingToastText(pendingProject())).toBe(
      "This project's .mcp.json wants to start a server (memory). Nothing runs until you approve it.",
    )
  })

  it('sums the servers up for the settings dialog', () => {
    expect(summaryLine({ servers: [], project: null })).toBe('No MCP servers configured.')
    expect(summaryLine(pendingProject())).toBe('2 servers · 1 ready · project file awaits approval')
    expect(
      summaryLine({ servers: [server(), server({ name: 'b', state: 'failed', error: 'x' })], project: null }),
    ).toBe('2 servers · 1 ready · 1 failed')
  })

  it('counts tools, the switched-off ones apart', () => {
    expect(toolCount(server())).toBe('2 tools')
    const one = server()
    one.tools[1] = { ...one.tools[1], enabled: false }
    expect(toolCount(one)).toBe('2 tools, 1 off')
    expect(toolCount(server({ state: 'starting', tools: [] }))).toBe('tools appear once it is ready')
  })

  it('keeps the end of a long log and says how much it left out', () => {
    const text = Array.from({ length: 250 }, (_, i) => `line ${i}`).join('\n') + '\n'
    const tail = logTail(text, 200)
    expect(tail.omitted).toBe(50)
    expect(tail.text.split('\n')[0]).toBe('line 50')
    expect(tail.text.split('\n').at(-1)).toBe('line 249')
    expect(logTail('one\ntwo\n')).toEqual({ text: 'one\ntwo', omitted: 0 })
  })
})
