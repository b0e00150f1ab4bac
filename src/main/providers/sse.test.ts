import { describe, expect, it } from 'vitest'
import { NdjsonParser } from './ndjson'
import { SseParser, type SseEvent } from './sse'

function parse(text: string, step = 1): SseEvent[] {
  const events: SseEvent[] = []
  const parser = new SseParser((e) => events.push(e))
  for (let i = 0; i < text.length; i += step) parser.push(text.slice(i, i + step))
  parser.end()
  return events
}

describe('SseParser', () => {
  it('handles comments, CRLF (split between CR and LF), data: without a space, event names and multi-line data', () => {
    const text =
      ': OPENROUTER PROCESSING\r\n\r\nevent: x\r\ndata:{"a":1}\r\n\r\ndata: line1\ndata: line2\n\n: keep-alive\n\n'
    const expected = [{ event: 'x', data: '{"a":1}' }, { data: 'line1\nline2' }]
    for (const step of [1, 2, 3, 7, text.length]) expect(parse(text, step)).toEqual(expected)
  })

  it('treats a lone CR as a line end and keeps an empty data: event', () => {
    expect(parse('data: a\r\rdata: \n\n')).toEqual([{ data: 'a' }, { data: '' }])
  })

  it("surfaces llama.cpp's non-standard error: field", () => {
    expect(parse('error: {"code":400,"message":"too big"}\n\ndata: [DONE]\n\n')).toEqual([
      { data: '', error: '{"code":400,"message":"too big"}' },
      { data: '[DONE]' },
    ])
  })

  it('dispatches a truncated final event at end of body so the caller can see it is cut', () => {
    expect(parse('data: {"a":1}\n\ndata: {"b"', 2)).toEqual([{ data: '{"a":1}' }, { data: '{"b"' }])
    expect(parse('data: [DONE]')).toEqual([{ data: '[DONE]' }])
  })

  it('ignores unknown fields and lines with no colon', () => {
    expect(parse('id: 7\nretry: 100\nfoo\ndata: x\n\n')).toEqual([{ data: 'x' }])
  })
})

describe('NdjsonParser', () => {
  it('splits on \\n across chunks, strips CR, skips blank lines and flushes the last line', () => {
    const lines: string[] = []
    const p = new NdjsonParser((l) => lines.push(l))
    for (const c of ['{"a"', ':1}\r\n\n{"b":', '2}\n{"c":3}']) p.push(c)
    p.end()
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}'])
  })
})
