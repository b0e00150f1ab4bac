import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { McpApproval } from './McpApproval'
import type { ApprovalCard } from './types'

const card = (subject: Partial<ApprovalCard<'mcp'>['subject']>): string =>
  renderToStaticMarkup(
    createElement(McpApproval, {
      request: {
        callId: 'c1',
        tool: 'mcp__files__wipe',
        subject: { kind: 'mcp', server: 'files', tool: 'wipe', args: { path: 'x' }, ...subject },
      },
      queued: 0,
      onResolve: () => {},
    }),
  )

describe('MCP approval card', () => {
  it('says the tool annotations the server set, in words, destructive and open world marked', () => {
    const html = card({ hints: { destructive: true, idempotent: false, openWorld: true } })
    expect(html).toContain('data-testid="approval-mcp-hints"')
    expect(html).toContain(
      '<li class="warn" data-hint="destructive" data-value="true">may delete or overwrite data (allowing the whole server does not cover it)</li>',
    )
    expect(html).toContain(
      '<li data-hint="idempotent" data-value="false">not safe to repeat: each call may act again</li>',
    )
    expect(html).toContain('data-hint="openWorld" data-value="true">reaches outside')
  })

  it('says read-only, and shows no hints list when the server set none', () => {
    expect(card({ readOnly: true })).toContain(
      'data-hint="readOnly" data-value="true">only reads, changes nothing',
    )
    expect(card({})).not.toContain('approval-mcp-hints')
  })
})
