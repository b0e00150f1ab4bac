import { describe, expect, it } from 'vitest'
import { baseName, isCompletable, parentOf, withTrailingSep } from './paths'

describe('folder paths', () => {
  it('adds the separator the path uses', () => {
    expect(withTrailingSep('/home/me/app')).toBe('/home/me/app/')
    expect(withTrailingSep('/home/me/app/')).toBe('/home/me/app/')
    expect(withTrailingSep('C:\\Users\\me')).toBe('C:\\Users\\me\\')
  })
  it('names the folder and where it is', () => {
    expect(baseName('/home/me/app/')).toBe('app')
    expect(baseName('C:\\code\\site')).toBe('site')
    expect(parentOf('/home/me/code/app')).toBe('/home/me/code')
    expect(parentOf('/home/me/code/app/')).toBe('/home/me/code')
    expect(parentOf('C:\\code\\site')).toBe('C:\\code')
    expect(parentOf('/app')).toBe('/')
  })
  it('completes absolute paths and ~ only', () => {
    expect(isCompletable('/ho')).toBe(true)
    expect(isCompletable('~/co')).toBe(true)
    expect(isCompletable('D:\\x')).toBe(true)
    expect(isCompletable('code/app')).toBe(false)
    expect(isCompletable('')).toBe(false)
  })
})
