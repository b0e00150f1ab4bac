import { describe, expect, it } from 'vitest'
import { base64Bytes, formatBytes, MAX_SHOWN_IMAGE_BYTES, shownImage } from './attachments'

// A real 1×1 PNG (70 bytes).
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='

describe('shownImage', () => {
  it('makes a data: URL with its type and an alt text naming the tool, the type and the size', () => {
    expect(
      shownImage({ kind: 'image', mimeType: 'image/png', data: PNG }, 0, 1, 'everything · get-tiny-image'),
    ).toEqual({
      kind: 'image',
      src: `data:image/png;base64,${PNG}`,
      alt: 'Image returned by everything · get-tiny-image (image/png, 70 B)',
      bytes: 70,
      mimeType: 'image/png',
    })
    expect(shownImage({ kind: 'image', mimeType: 'IMAGE/JPEG', data: PNG }, 1, 3, 't')).toMatchObject({
      kind: 'image',
      src: `data:image/jpeg;base64,${PNG}`,
      alt: 'Image 2 of 3 returned by t (image/jpeg, 70 B)',
    })
  })

  it('does not show SVG, unknown types, data that is not base64, or images over the cap', () => {
    const svg = btoa('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
    expect(shownImage({ kind: 'image', mimeType: 'image/svg+xml', data: svg }, 0, 1, 't')).toMatchObject({
      kind: 'note',
      text: expect.stringContaining('not a picture type the app displays'),
    })
    expect(shownImage({ kind: 'image', mimeType: 'image/png', data: 'abc");x' }, 0, 1, 't')).toMatchObject({
      kind: 'note',
      text: 'Image (image/png) is not shown: its data is not base64.',
    })
    const big = 'A'.repeat(Math.ceil(((MAX_SHOWN_IMAGE_BYTES + 3) * 4) / 3))
    expect(shownImage({ kind: 'image', mimeType: 'image/png', data: big }, 0, 2, 't')).toMatchObject({
      kind: 'note',
      text: 'Image 1 of 2 (image/png, 4.0 MB) is not shown: larger than 4.0 MB.',
    })
  })
})

describe('base64Bytes and formatBytes', () => {
  it('count the decoded bytes, padding and line breaks aside', () => {
    expect(base64Bytes('')).toBe(0)
    expect(base64Bytes('YQ==')).toBe(1)
    expect(base64Bytes('YWI=')).toBe(2)
    expect(base64Bytes('YWJj\nYWJj')).toBe(6)
    expect(base64Bytes(PNG)).toBe(atob(PNG).length)
  })

  it('say sizes in B, kB and MB', () => {
    expect([formatBytes(999), formatBytes(1400), formatBytes(3_200_000)]).toEqual([
      '999 B',
      '1.4 kB',
      '3.2 MB',
    ])
  })
})
