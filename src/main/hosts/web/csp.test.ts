import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { contentSecurityPolicy } from './csp'

const indexHtml = resolve(dirname(fileURLToPath(import.meta.url)), '../../../renderer/index.html')

const directives = (policy: string): Map<string, string> =>
  new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0])
      .map(([name, ...values]) => [name, values.join(' ')]),
  )

describe('the web host CSP', () => {
  it('is the policy of src/renderer/index.html plus the WebSocket endpoint', () => {
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(
      readFileSync(indexHtml, 'utf8'),
    )
    expect(meta).not.toBeNull()
    const page = directives(meta![1])
    const served = directives(contentSecurityPolicy(['ws://127.0.0.1:4000', 'ws://localhost:4000']))
    expect(served.get('connect-src')).toBe(
      `${page.get('connect-src')} ws://127.0.0.1:4000 ws://localhost:4000`,
    )
    page.delete('connect-src')
    served.delete('connect-src')
    expect(served).toEqual(page)
  })
})
