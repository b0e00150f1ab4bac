import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { writeApiKey } from '../../config/credentials'
import { defaultDataDir } from '../../config/paths'
import { exitCodeFor, numCtxArg, resolveProviderConfig, temperatureArg } from './edit'
import { UsageError } from './exit-codes'
import { contextShare } from './render'

let dataDir: string | undefined
afterEach(() => {
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
  dataDir = undefined
})

const settings = (values: Record<string, string> = {}) => ({ getSetting: (k: string) => values[k] })

describe('resolveProviderConfig: flags, then environment, then stored settings, then defaults', () => {
  it('defaults to ollama without a key, and to openai with one', () => {
    expect(resolveProviderConfig({}, {}, settings(), '/none')).toEqual({
      provider: 'ollama',
      model: 'qwen2.5-coder:7b',
      baseUrl: undefined,
      apiKey: undefined,
    })
    expect(resolveProviderConfig({}, { OPENAI_API_KEY: 'sk-1' }, settings(), '/none')).toMatchObject({
      provider: 'openai',
      model: 'gpt-4.1-mini',
      apiKey: 'sk-1',
    })
  })

  it('takes the base URL from OPENAI_BASE_URL or OLLAMA_HOST per provider; the flag wins', () => {
    const env = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OLLAMA_HOST: 'http://127.0.0.1:8' }
    expect(
      resolveProviderConfig({ provider: 'openai-chat', model: 'm' }, env, settings(), '/none').baseUrl,
    ).toBe('http://127.0.0.1:9/v1')
    expect(resolveProviderConfig({ provider: 'ollama' }, env, settings(), '/none').baseUrl).toBe(
      'http://127.0.0.1:8',
    )
    expect(
      resolveProviderConfig({ provider: 'ollama', baseUrl: 'http://127.0.0.1:7' }, env, settings(), '/none')
        .baseUrl,
    ).toBe('http://127.0.0.1:7')
  })

  it('uses stored settings and the stored key when the environment has none', () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-cfg-'))
    writeApiKey(dataDir, 'openai-chat', 'sk-stored')
    expect(fs.statSync(path.join(dataDir, 'credentials.json')).mode & 0o777).toBe(0o600)
    const cfg = resolveProviderConfig(
      {},
      {},
      settings({ provider: 'openai-chat', 'model.openai-chat': 'local' }),
      dataDir,
    )
    expect(cfg).toEqual({ provider: 'openai-chat', model: 'local', baseUrl: undefined, apiKey: 'sk-stored' })
  })

  it('requires --model for openai-chat', () => {
    expect(() => resolveProviderConfig({ provider: 'openai-chat' }, {}, settings(), '/none')).toThrow(
      UsageError,
    )
  })
})

describe('exit codes', () => {
  it('maps every outcome', () => {
    expect(exitCodeFor({ reason: 'done' })).toBe(0)
    expect(exitCodeFor({ reason: 'step-limit' })).toBe(3)
    expect(exitCodeFor({ reason: 'interrupted' })).toBe(130)
    expect(exitCodeFor({ reason: 'error', errorKind: 'network' })).toBe(4)
    expect(exitCodeFor({ reason: 'error', errorKind: 'auth' })).toBe(4)
    expect(exitCodeFor({ reason: 'error', errorKind: 'quota' })).toBe(1)
    expect(exitCodeFor({ reason: 'error', errorKind: 'internal' })).toBe(1)
  })
})

describe('defaultDataDir', () => {
  it('prefers $STEPWISE_HOME, then the OS folder', () => {
    expect(defaultDataDir({ STEPWISE_HOME: '/x/y' }, 'linux')).toBe('/x/y')
    expect(defaultDataDir({ XDG_DATA_HOME: '/xdg' }, 'linux')).toBe('/xdg/stepwise')
    expect(defaultDataDir({}, 'darwin')).toBe(
      path.join(os.homedir(), 'Library', 'Application Support', 'Stepwise'),
    )
  })
})

describe('--num-ctx and --temperature', () => {
  it('take a window from 512 tokens and a temperature from 0 to 2', () => {
    expect(numCtxArg('8192')).toBe(8192)
    expect(() => numCtxArg('100')).toThrow(/from 512/)
    expect(() => numCtxArg('8k')).toThrow(/from 512/)
    expect(temperatureArg('0')).toBe(0)
    expect(temperatureArg('0.2')).toBe(0.2)
    expect(() => temperatureArg('2.5')).toThrow(/0 to 2/)
    expect(() => temperatureArg('')).toThrow(/0 to 2/)
  })

  it('win over the stored window and temperature, field by field', () => {
    const stored = settings({
      app: JSON.stringify({ modelOptions: { numCtx: 4096, temperature: 0.5, maxNumCtx: 65536 } }),
    })
    expect(resolveProviderConfig({ provider: 'ollama' }, {}, stored, '/none')).toMatchObject({
      numCtx: 4096,
      temperature: 0.5,
      maxNumCtx: 65536,
    })
    expect(resolveProviderConfig({ provider: 'ollama', numCtx: 8192 }, {}, stored, '/none')).toMatchObject({
      numCtx: 8192,
      temperature: 0.5,
      maxNumCtx: 65536,
    })
    // A stored value that no longer parses is ignored, not fatal.
    const broken = settings({ app: JSON.stringify({ modelOptions: { numCtx: 'big' } }) })
    expect(resolveProviderConfig({ provider: 'ollama', temperature: 0 }, {}, broken, '/none')).toMatchObject({
      temperature: 0,
    })
    expect(resolveProviderConfig({ provider: 'ollama' }, {}, broken, '/none').numCtx).toBeUndefined()
  })
})

describe("the terminal's context share", () => {
  it('marks our own estimate with "~"', () => {
    expect(contextShare({ usedTokens: 4096, windowTokens: 8192 })).toBe('50% of 8k')
    expect(contextShare({ usedTokens: 4096, windowTokens: 8192, promptSource: 'reported' })).toBe('50% of 8k')
    expect(contextShare({ usedTokens: 4096, windowTokens: 8192, promptSource: 'estimated' })).toBe(
      '~50% of 8k',
    )
  })
})
