import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { resolveRendererFile } from './protocol'

vi.mock('electron', () => ({ protocol: {} }))

describe('resolveRendererFile', () => {
  const dir = join('/', 'app', 'out', 'renderer')

  it('maps app:// URLs into the renderer folder', () => {
    expect(resolveRendererFile(dir, 'app://stepwise/')).toBe(join(dir, 'index.html'))
    expect(resolveRendererFile(dir, 'app://stepwise/assets/index-1.js?v=2')).toBe(
      join(dir, 'assets', 'index-1.js'),
    )
  })

  it('keeps dot segments inside the folder (the URL parser resolves them first)', () => {
    expect(resolveRendererFile(dir, 'app://stepwise/%2e%2e/%2e%2e/etc/passwd')).toBe(
      join(dir, 'etc', 'passwd'),
    )
  })

  it('refuses paths that leave the folder and other hosts', () => {
    expect(resolveRendererFile(dir, 'app://stepwise/assets/..%2f..%2f..%2fpackage.json')).toBeNull()
    expect(resolveRendererFile(dir, 'app://other/index.html')).toBeNull()
  })
})
