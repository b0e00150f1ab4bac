import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { readReport } from './project'

/*
 * run_tests' JSON report is written by the test command (in the sandbox) and read by the host:
 * only a regular file is read. Real files, a real link, a real FIFO.
 */

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function temp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-report-'))
  dirs.push(d)
  return d
}

const report = (message: string) =>
  JSON.stringify({
    testResults: [
      { name: 'x', assertionResults: [{ status: 'failed', title: 't', failureMessages: [message] }] },
    ],
  })

describe('the test report the host reads', () => {
  it('is parsed when the command wrote a regular file', () => {
    const root = temp()
    fs.writeFileSync(path.join(root, 'r.json'), report('expected 3, got 4'))
    expect(readReport(path.join(root, 'r.json'), root)?.failures[0].message).toContain('expected 3')
  })

  it('is not read through a link, from a FIFO or from a folder', () => {
    const root = temp()
    const outside = temp()
    fs.writeFileSync(path.join(outside, 'host.json'), report('HOSTSECRET'))
    fs.symlinkSync(path.join(outside, 'host.json'), path.join(root, 'link.json'))
    expect(readReport(path.join(root, 'link.json'), root)).toBeNull()
    execFileSync('mkfifo', [path.join(root, 'fifo.json')])
    expect(readReport(path.join(root, 'fifo.json'), root)).toBeNull()
    fs.mkdirSync(path.join(root, 'dir.json'))
    expect(readReport(path.join(root, 'dir.json'), root)).toBeNull()
    expect(readReport(path.join(root, 'absent.json'), root)).toBeNull()
  })
})
