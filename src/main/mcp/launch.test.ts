import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { closeLog, openLog, readLogTail } from './launch'

/*
 * Each MCP server's stderr log in the data folder (docs/mcp.md): kept to one old generation, and a
 * log that cannot be written costs the log alone — never an uncaught error that ends the app.
 */

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-mcp-log-'))
  dirs.push(dir)
  return dir
}

describe('MCP server logs', () => {
  it('appends, and moves a log over 1 MB to .1 before opening it again', async () => {
    const file = path.join(tempDir(), 'mcp-logs', 'notes.log')
    const first = openLog(file)
    first.write('first line\n')
    await closeLog(first)
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    const second = openLog(file)
    second.write('second line\n')
    await closeLog(second)
    expect(readLogTail(file)).toBe('first line\nsecond line\n')

    fs.appendFileSync(file, 'x'.repeat(1024 * 1024))
    const third = openLog(file)
    third.write('after the move\n')
    await closeLog(third)
    expect(readLogTail(file)).toBe('after the move\n')
    expect(fs.statSync(`${file}.1`).size).toBeGreaterThan(1024 * 1024)
  })

  it('a folder removed before the log opens loses the log, not the process', async () => {
    // The stream opens its file after openLog returns; a session stopped while its data folder is
    // deleted (a test's cleanup, a user clearing the folder) used to throw ENOENT uncaught.
    const dir = tempDir()
    const file = path.join(dir, 'mcp-logs', 'notes.log')
    const log = openLog(file)
    fs.rmSync(dir, { recursive: true, force: true })
    log.write('starting\n')
    await closeLog(log)
    expect(log.errored).toMatchObject({ code: 'ENOENT' })
    expect(fs.existsSync(file)).toBe(false)
    // Closing again, as a second stop would, returns at once.
    await closeLog(log)
  })

  it('a log closed by stop has written everything before its folder can go', async () => {
    const file = path.join(tempDir(), 'mcp-logs', 'notes.log')
    const log = openLog(file)
    for (let i = 0; i < 100; i++) log.write(`line ${i}\n`)
    await closeLog(log)
    expect(log.closed).toBe(true)
    expect(readLogTail(file).split('\n')).toHaveLength(101)
  })
})
