import { describe, expect, it } from 'vitest'
import { effectiveLayout, NARROW_DIFF_WIDTH } from './diffLayout'

describe('effectiveLayout', () => {
  it('is inline in a narrow pane and side by side in a wide one until the user chooses', () => {
    expect(effectiveLayout(null, NARROW_DIFF_WIDTH - 1)).toBe('inline')
    expect(effectiveLayout(null, NARROW_DIFF_WIDTH)).toBe('side')
    expect(effectiveLayout(null, null)).toBe('side')
  })

  it('keeps the remembered choice whatever the width', () => {
    expect(effectiveLayout('side', 400)).toBe('side')
    expect(effectiveLayout('inline', 1400)).toBe('inline')
  })
})
