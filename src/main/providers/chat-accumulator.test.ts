import { describe, expect, it } from 'vitest'
import { ChatToolCallAccumulator, type ToolCallDelta } from './chat-accumulator'

function accumulate(deltas: ToolCallDelta[]) {
  const acc = new ChatToolCallAccumulator()
  for (const d of deltas) acc.push(d)
  return acc.finish()
}
const GEN_ID = expect.stringMatching(/^call_[a-z0-9]{24}$/)

describe('ChatToolCallAccumulator', () => {
  it('C: the name arriving after the id', () => {
    expect(
      accumulate([
        { index: 0, id: 'call_late', type: 'function', function: { arguments: '' } },
        { index: 0, id: 'call_late', type: 'function', function: { name: 'test-tool', arguments: '{"' } },
        { index: 0, function: { arguments: 'v":1}' } },
      ]),
    ).toEqual([{ id: 'call_late', name: 'test-tool', arguments: '{"v":1}' }])
  })

  it('J: pretty-printed and falsy arguments are kept exactly as produced', () => {
    expect(
      accumulate([
        {
          index: 0,
          id: 'c',
          function: { name: 'f', arguments: '{\n  "modelId": 0,\n  "x": false,\n  "s": ""\n}' },
        },
      ]),
    ).toEqual([{ id: 'c', name: 'f', arguments: '{\n  "modelId": 0,\n  "x": false,\n  "s": ""\n}' }])
  })

  it('the id repeated on every chunk (sglang, LiteLLM) continues the same call', () => {
    expect(
      accumulate([
        { index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a"' } },
        { index: 0, id: 'c1', type: 'function', function: { arguments: ':1}' } },
      ]),
    ).toEqual([{ id: 'c1', name: 'f', arguments: '{"a":1}' }])
  })

  it('an empty-arguments chunk after the call completed adds nothing', () => {
    expect(
      accumulate([
        { index: 0, id: 'chatcmpl-tool-1', type: 'function', function: { name: 'f' } },
        { index: 0, function: { arguments: '{"a":1}' } },
        { index: 0, function: { arguments: '' } },
      ]),
    ).toEqual([{ id: 'chatcmpl-tool-1', name: 'f', arguments: '{"a":1}' }])
  })

  it('no index and no id: continuation fragments join, a named chunk after complete JSON starts a new call', () => {
    expect(
      accumulate([
        { function: { name: 'f', arguments: '{"a":' } },
        { function: { arguments: '1}' } },
        { function: { name: 'g', arguments: '{}' } },
      ]),
    ).toEqual([
      { id: GEN_ID, name: 'f', arguments: '{"a":1}' },
      { id: GEN_ID, name: 'g', arguments: '{}' },
    ])
  })

  it('sparse indexes stay separate calls in order; object arguments are stringified; nameless empty fragments are dropped', () => {
    expect(
      accumulate([
        { index: 2, id: 'b', function: { name: 'g', arguments: { x: 1 } } },
        { index: 5, id: 'c', function: { name: 'h', arguments: '' } },
        { index: 7, function: { arguments: '' } },
      ]),
    ).toEqual([
      { id: 'b', name: 'g', arguments: '{"x":1}' },
      { id: 'c', name: 'h', arguments: '{}' },
    ])
  })
})
