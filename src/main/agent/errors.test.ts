import { describe, expect, it } from 'vitest'
import { ProviderError, type ProviderErrorKind } from '../providers/types'
import { describeProviderError } from './errors'

const KINDS: ProviderErrorKind[] = [
  'network',
  'rate-limit',
  'server',
  'auth',
  'quota',
  'context-overflow',
  'not-found',
  'bad-request',
  'bad-response',
]

describe('describeProviderError', () => {
  for (const id of ['ollama', 'openai-chat', 'openai'] as const) {
    const provider = { id, model: 'm', baseUrl: 'http://127.0.0.1:9/v1' }
    it(`gives the app's user advice with no CLI flag or environment variable (${id})`, () => {
      for (const kind of KINDS) {
        const { hint, code } = describeProviderError(new ProviderError(kind, 'x'), provider, 'app')
        expect(hint, `${kind} → ${code}`).toBeTruthy()
        expect(hint).not.toMatch(/--[a-z]|[A-Z]{3,}_[A-Z]{3,}/)
      }
    })

    it(`keeps the CLI's flags for the CLI (${id})`, () => {
      const { hint } = describeProviderError(new ProviderError('network', 'refused'), provider)
      expect(hint).toMatch(/--base-url/)
    })
  }
})
