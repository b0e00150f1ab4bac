import { describe, expect, it } from 'vitest'
import { fileAcceptAnswer, fileAcceptLabel } from './decision'
import { computeHunks } from './hunks'

const before = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n'
const after = 'ONE\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n'
const hunks = computeHunks(before, after)

describe('fileAcceptAnswer', () => {
  it('accepts when every hunk is accepted and nothing was edited', () => {
    expect(fileAcceptAnswer({ before, after, hunks, accepted: new Set([0, 1]), editedText: null })).toEqual({
      decision: 'accept',
    })
  })

  it('sends the partially applied text when some hunks are rejected', () => {
    expect(fileAcceptAnswer({ before, after, hunks, accepted: new Set([1]), editedText: null })).toEqual({
      decision: 'partial',
      editedContent: 'one\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n',
    })
  })

  it('has no accept answer when every hunk is rejected', () => {
    expect(fileAcceptAnswer({ before, after, hunks, accepted: new Set(), editedText: null })).toBeNull()
  })

  it('sends edited text, or a plain accept when the edit matches the proposal exactly', () => {
    expect(fileAcceptAnswer({ before, after, hunks, accepted: new Set(), editedText: 'mine\n' })).toEqual({
      decision: 'edited',
      editedContent: 'mine\n',
    })
    expect(fileAcceptAnswer({ before, after, hunks, accepted: new Set(), editedText: after })).toEqual({
      decision: 'accept',
    })
    expect(fileAcceptAnswer({ before, after, hunks, accepted: new Set(), editedText: after + ' ' })).toEqual({
      decision: 'edited',
      editedContent: after + ' ',
    })
  })

  it('accepts a change without hunks', () => {
    expect(
      fileAcceptAnswer({ before: 'x', after: 'x', hunks: [], accepted: new Set(), editedText: null }),
    ).toEqual({
      decision: 'accept',
    })
  })

  it('compares an edit of a deleted file against the empty text', () => {
    const del = computeHunks('gone\n', null)
    expect(
      fileAcceptAnswer({ before: 'gone\n', after: null, hunks: del, accepted: new Set(), editedText: '' }),
    ).toEqual({
      decision: 'accept',
    })
  })
})

describe('fileAcceptLabel', () => {
  it('names what Accept will do', () => {
    expect(fileAcceptLabel(hunks, new Set([0, 1]), false)).toBe('Accept (Y)')
    expect(fileAcceptLabel(hunks, new Set([0]), false)).toBe('Apply 1 of 2 hunks (Y)')
    expect(fileAcceptLabel(hunks, new Set(), false)).toBe('Accept (Y)')
    expect(fileAcceptLabel(hunks, new Set([0]), true)).toBe('Accept edited (Y)')
  })
})
