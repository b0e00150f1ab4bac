import { describe, expect, it } from 'vitest'
import { attentionCalls, type AttentionSnapshot } from './events'
import { parsePrefs } from './prefs'

const snap = (over: Partial<AttentionSnapshot> = {}): AttentionSnapshot => ({
  sessionId: 's1',
  busy: true,
  pending: [],
  ...over,
})

describe('attentionCalls', () => {
  it('calls once for an approval that starts waiting', () => {
    expect(attentionCalls(snap(), snap({ pending: ['c1'] }))).toEqual([{ kind: 'approval', callId: 'c1' }])
    expect(attentionCalls(snap({ pending: ['c1'] }), snap({ pending: ['c1'] }))).toEqual([])
  })

  it('calls when a turn ends, not when it ends on a waiting approval', () => {
    expect(attentionCalls(snap(), snap({ busy: false }))).toEqual([{ kind: 'turn-ended' }])
    expect(attentionCalls(snap({ pending: ['c1'] }), snap({ busy: false, pending: ['c1'] }))).toEqual([])
  })

  it('stays quiet when another session opens or none is open', () => {
    expect(attentionCalls(snap(), snap({ sessionId: 's2', pending: ['c9'] }))).toEqual([])
    expect(attentionCalls(snap({ sessionId: null }), snap({ sessionId: null, busy: false }))).toEqual([])
  })
})

describe('parsePrefs', () => {
  it('notifies without sound by default and keeps only booleans it knows', () => {
    expect(parsePrefs(null)).toEqual({ notify: true, sound: false })
    expect(parsePrefs('{"notify":false,"sound":"yes"}')).toEqual({ notify: false, sound: false })
    expect(parsePrefs('not json')).toEqual({ notify: true, sound: false })
  })
})
