import { describe, expect, it } from 'vitest'
import type { McpPromptView, McpResourceView } from '../../../shared/protocol'
import {
  matchPrompts,
  matchResources,
  needsPromptArgs,
  placeholderIn,
  promptBeingRun,
  promptUsage,
  resourceMention,
} from './mcpOffers'

const review: McpPromptView = {
  server: 'lib',
  command: 'mcp__lib__review',
  name: 'review',
  arguments: [
    { name: 'topic', required: true },
    { name: 'tone', required: false },
  ],
}
const hello: McpPromptView = { server: 'lib', command: 'mcp__lib__hello', name: 'hello', arguments: [] }
const guide: McpResourceView = { server: 'lib', uri: 'note://guide', template: false, name: 'Style guide' }
const shelf: McpResourceView = { server: 'lib', uri: 'note://shelf/{name}', template: true }

describe('MCP offers in the message box', () => {
  it('matches prompts by their command, starts first', () => {
    expect(matchPrompts([hello, review], '')).toEqual([hello, review])
    expect(matchPrompts([hello, review], 'mcp__lib__r')).toEqual([review])
    expect(matchPrompts([hello, review], 'REV')).toEqual([review])
    expect(matchPrompts([hello, review], 'model')).toEqual([])
  })

  it('writes a prompt’s arguments, optional ones in brackets, and knows when one is required', () => {
    expect(promptUsage(review)).toBe('topic=… [tone=…]')
    expect(needsPromptArgs(review)).toBe(true)
    expect(needsPromptArgs(hello)).toBe(false)
  })

  it('knows the prompt whose arguments are being typed', () => {
    expect(promptBeingRun([hello, review], '/mcp__lib__review topic=')).toBe(review)
    expect(promptBeingRun([hello, review], '/mcp__lib__review')).toBeUndefined()
    expect(promptBeingRun([hello, review], 'see /mcp__lib__review x')).toBeUndefined()
  })

  it('matches resources on server:uri and name, and finds a template’s placeholder', () => {
    expect(matchResources([guide, shelf], '')).toEqual([guide, shelf])
    expect(matchResources([guide, shelf], 'style')).toEqual([guide])
    expect(matchResources([guide, shelf], 'lib:note://sh')).toEqual([shelf])
    expect(resourceMention(shelf)).toBe('lib:note://shelf/{name}')
    expect(placeholderIn(resourceMention(shelf))).toEqual({ start: 17, end: 23 })
    expect(placeholderIn(resourceMention(guide))).toBeUndefined()
  })
})
