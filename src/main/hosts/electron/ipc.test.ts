import { describe, expect, it, vi } from 'vitest'
import { answerCommand } from './ipc'

// Importing `electron` from plain Node tries to download the binary; the binding itself is not under
// test here, only the answers it gives.
vi.mock('electron', () => ({ ipcMain: { handle: vi.fn() } }))

describe('answerCommand', () => {
  it('answers session/list with an empty list', async () => {
    expect(await answerCommand('session/list', {})).toEqual({ ok: true, output: { sessions: [] } })
  })

  it('refuses an unknown command by name', async () => {
    expect(await answerCommand('fs/read', { path: '/etc/passwd' })).toEqual({
      ok: false,
      error: 'Unknown command "fs/read".',
    })
    expect(await answerCommand(42, {})).toEqual({ ok: false, error: 'Unknown command 42.' })
  })

  it('refuses invalid input, naming the field', async () => {
    const reply = await answerCommand('turn/start', { sessionId: 's1', text: 42 })
    expect(reply.ok).toBe(false)
    expect(!reply.ok && reply.error).toMatch(/^Invalid input for turn\/start: .*\n.*at text/s)
  })

  it('says a valid command is not available yet', async () => {
    expect(await answerCommand('turn/start', { sessionId: 's1', text: 'hello' })).toEqual({
      ok: false,
      error:
        'turn/start is not available in this build yet; the desktop UI is in progress. Use the CLI: stepwise --help',
    })
  })
})
