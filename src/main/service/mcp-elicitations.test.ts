import { describe, expect, it } from 'vitest'
import type { HostMessage } from '../../shared/protocol'
import { ElicitationDesk } from './mcp-elicitations'

const form = {
  server: 'crm',
  mode: 'form' as const,
  message: 'Who are you?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string', default: 'Ada' } } },
}

describe('servers’ questions in the app', () => {
  it('waits for the card’s answer, broadcasting the list as it changes', async () => {
    const sent: HostMessage[] = []
    const desk = new ElicitationDesk((m) => sent.push(m))
    const answer = desk.elicit(form, new AbortController().signal)
    const [asked] = desk.list()
    expect(asked).toMatchObject({ server: 'crm', mode: 'form', message: 'Who are you?' })
    expect(desk.answer({ id: asked.id, action: 'accept', content: { name: 'Grace' } })).toEqual([])
    expect(await answer).toEqual({ action: 'accept', content: { name: 'Grace' } })
    expect(sent).toEqual([
      { type: 'host.mcp-elicitations', pending: [asked] },
      { type: 'host.mcp-elicitations', pending: [] },
    ])
    expect(() => desk.answer({ id: asked.id, action: 'decline' })).toThrow(
      'That question is no longer waiting',
    )
  })

  it('a stopped call takes its question away as cancelled; a URL question is accepted without content', async () => {
    const desk = new ElicitationDesk(() => {})
    const stop = new AbortController()
    const cancelled = desk.elicit(form, stop.signal)
    stop.abort()
    expect(await cancelled).toEqual({ action: 'cancel' })
    expect(desk.list()).toEqual([])
    const url = desk.elicit(
      { server: 's', mode: 'url', message: 'Link it', url: 'https://e.x/' },
      new AbortController().signal,
    )
    desk.answer({ id: desk.list()[0].id, action: 'accept', content: { x: 1 } })
    expect(await url).toEqual({ action: 'accept' })
  })
})
