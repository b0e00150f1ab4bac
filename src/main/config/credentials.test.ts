import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { credentialsFile, readApiKey, writeApiKey } from './credentials'

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-credentials-'))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

describe('the CLI credentials file', () => {
  it('keeps the other providers’ keys when one is written', () => {
    writeApiKey(dir, 'openai', 'sk-one')
    writeApiKey(dir, 'anthropic', 'sk-two')
    expect(readApiKey(dir, 'openai')).toBe('sk-one')
    expect(readApiKey(dir, 'anthropic')).toBe('sk-two')
    expect(fs.statSync(credentialsFile(dir)).mode & 0o777).toBe(0o600)
  })

  it('reads no key from a file that is not a JSON object, and writing starts it afresh', () => {
    for (const text of ['null', '[1,2]', '"sk"', 'not json']) {
      fs.writeFileSync(credentialsFile(dir), text)
      expect(readApiKey(dir, 'openai')).toBeUndefined()
      writeApiKey(dir, 'openai', 'sk-new')
      expect(JSON.parse(fs.readFileSync(credentialsFile(dir), 'utf8'))).toEqual({ openai: 'sk-new' })
    }
  })

  it('takes only a non-empty string as a key', () => {
    fs.writeFileSync(credentialsFile(dir), JSON.stringify({ openai: 42, anthropic: '' }))
    expect(readApiKey(dir, 'openai')).toBeUndefined()
    expect(readApiKey(dir, 'anthropic')).toBeUndefined()
  })
})
