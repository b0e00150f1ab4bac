import { describe, expect, it } from 'vitest'
import type { TimelineStep } from '../../../shared/reducer'
import { checkpointOf, foldCheckpoints } from './fold'

const tool = (seq: number, callId: string): TimelineStep => ({
  kind: 'tool',
  seq,
  ts: 0,
  callId,
  name: 'edit_file',
  args: { path: 'a.py' },
  mutating: true,
  status: 'ok',
  output: '',
})
const checkpoint = (seq: number, callId?: string): TimelineStep => ({
  kind: 'checkpoint',
  seq,
  ts: 0,
  snapshotId: seq,
  paths: ['a.py'],
  ...(callId ? { callId } : {}),
})

describe('foldCheckpoints', () => {
  it("puts each checkpoint in its call's row and drops its own row", () => {
    const steps = [tool(1, 'a'), checkpoint(2, 'a'), tool(3, 'b'), checkpoint(4, 'b')]
    const rows = foldCheckpoints(steps)
    expect(rows.map((r) => r.kind)).toEqual(['tool', 'tool'])
    expect(rows[0]).toMatchObject({ callId: 'a', checkpoint: { seq: 2 } })
    expect(rows[1]).toMatchObject({ callId: 'b', checkpoint: { seq: 4 } })
  })

  it('keeps a checkpoint whose call is not among the rows, and one without a call', () => {
    const steps = [checkpoint(2, 'gone'), checkpoint(3)]
    expect(foldCheckpoints(steps)).toBe(steps)
  })

  it('gives the same row object for the same call and checkpoint (rows are memoised by identity)', () => {
    const steps = [tool(1, 'a'), checkpoint(2, 'a')]
    expect(foldCheckpoints(steps)[0]).toBe(foldCheckpoints([...steps, tool(5, 'c')])[0])
  })

  it('finds the checkpoint of a call among unfolded steps', () => {
    expect(checkpointOf([tool(1, 'a'), checkpoint(2, 'a')], 'a')?.seq).toBe(2)
    expect(checkpointOf([tool(1, 'a')], 'a')).toBeUndefined()
  })
})
