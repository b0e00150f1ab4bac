import { describe, expect, it } from 'vitest'
import { findMentions, MAX_MENTIONS, mentionProblems } from './catalog'

describe('findMentions', () => {
  it('finds @SERVER:URI of known servers once each, leaving sentence punctuation and other @ as text', () => {
    const text =
      '@docs:file:///a.md, then (see @docs:note://b). Mail me@docs:x://y or @user; @other:file:///c and @docs:file:///a.md'
    expect(findMentions(text, ['docs'])).toEqual([
      { server: 'docs', uri: 'file:///a.md' },
      { server: 'docs', uri: 'note://b' },
    ])
  })

  it('needs a scheme after the server name: @docs:readme is text', () => {
    expect(findMentions('look at @docs:readme', ['docs'])).toEqual([])
  })
})

describe('mentionProblems', () => {
  const reader = (server: string) => (server === 'docs' ? 'mcp__docs__read_resource' : undefined)
  const whyNot = (server: string) => `MCP server "${server}" is failed; start it in the MCP view first.`

  it('names an unfilled template, a server that cannot read, and too many mentions', () => {
    expect(
      mentionProblems(
        [
          { server: 'docs', uri: 'file:///{path}' },
          { server: 'jira', uri: 'jira://X-1' },
          { server: 'docs', uri: 'file:///ok' },
        ],
        reader,
        whyNot,
      ),
    ).toEqual([
      '@docs:file:///{path} is a template: replace each {…} with a value before sending.',
      '@jira:jira://X-1 cannot be read: MCP server "jira" is failed; start it in the MCP view first.',
    ])
    const many = Array.from({ length: MAX_MENTIONS + 1 }, (_, i) => ({ server: 'docs', uri: `file:///${i}` }))
    expect(mentionProblems(many, reader, whyNot)).toEqual([
      `The message names ${MAX_MENTIONS + 1} resources; attach at most ${MAX_MENTIONS} at a time.`,
    ])
  })
})
