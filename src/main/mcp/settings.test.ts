import { describe, expect, it } from 'vitest'
import { mcpSettingsSchema } from '../../shared/protocol'
import { isServerEnabled, isToolAllowed } from './settings'
import { hintsOf } from './tools'

describe('MCP settings and the servers’ hints', () => {
  const settings = mcpSettingsSchema.parse({ allowedServers: ['gh'], allowedTools: ['gh/delete_repo'] })

  it('a server-wide allow does not cover a tool the server marks destructive; allowing it by name does', () => {
    expect(isToolAllowed(settings, { server: 'gh', tool: 'list_issues' })).toBe(true)
    expect(isToolAllowed(settings, { server: 'gh', tool: 'close_issue', destructive: true })).toBe(false)
    expect(isToolAllowed(settings, { server: 'gh', tool: 'delete_repo', destructive: true })).toBe(true)
    expect(
      isToolAllowed(settings, { server: 'other', tool: 'wipe', autoApprove: ['wipe'], destructive: true }),
    ).toBe(true)
  })

  it('an entry off in its file stays off until the user turns it on; the user’s off wins', () => {
    expect(isServerEnabled(mcpSettingsSchema.parse({}), 'x', true)).toBe(false)
    expect(isServerEnabled(mcpSettingsSchema.parse({ enabledServers: ['x'] }), 'x', true)).toBe(true)
    expect(
      isServerEnabled(mcpSettingsSchema.parse({ enabledServers: ['x'], disabledServers: ['x'] }), 'x', true),
    ).toBe(false)
  })

  it('keeps only the annotations the server set', () => {
    expect(hintsOf({ name: 't', annotations: { destructiveHint: true, openWorldHint: false } })).toEqual({
      destructive: true,
      openWorld: false,
    })
    expect(hintsOf({ name: 't', annotations: { readOnlyHint: true } })).toBeUndefined()
  })
})
