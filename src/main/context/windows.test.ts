import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

// modelTable() keeps the first table it reads: each test imports a fresh module.
async function freshModelTable(): Promise<typeof import('./windows').modelTable> {
  vi.resetModules()
  return (await import('./windows')).modelTable
}

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-models-'))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

describe('resources/models.json', () => {
  it('reads the shipped table', async () => {
    const modelTable = await freshModelTable()
    const table = modelTable(path.resolve('resources'))
    expect(table.defaults.ollama).toBeGreaterThan(0)
    expect(Object.keys(table.models).length).toBeGreaterThan(5)
  })

  it('names the file and the wrong entry when an edit broke it', async () => {
    fs.writeFileSync(
      path.join(dir, 'models.json'),
      JSON.stringify({ models: { 'gpt-x': { contextWindow: '128k' } }, defaults: {} }),
    )
    const modelTable = await freshModelTable()
    expect(() => modelTable(dir)).toThrow(/models\.json: models\.gpt-x\.contextWindow: .*Fix the entry/)
  })

  it('says a file that is not JSON could not be read', async () => {
    fs.writeFileSync(path.join(dir, 'models.json'), '{ "models": ')
    const modelTable = await freshModelTable()
    expect(() => modelTable(dir)).toThrow(/could not be read as JSON/)
  })
})
