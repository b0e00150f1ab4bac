import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { hiddenByHost } from '../containment/project-secrets'
import { openStore } from '../store/store'
import { refusingApprover } from '../agent/approvals'
import { Session } from './session'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})
const temp = (prefix: string): string => {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  dirs.push(d)
  return d
}

describe('the data folder is hidden by the session, not by each host', () => {
  it('a host that only opens a store and a session gets its data folder hidden from commands', async () => {
    const dataDir = temp('stepwise-datafolder-')
    const repo = temp('stepwise-datafolder-repo-')
    fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n')
    expect(hiddenByHost()).not.toContain(dataDir)
    const store = openStore(dataDir)
    try {
      await Session.create(store, {
        repo,
        provider: { provider: 'ollama', model: 'm', baseUrl: 'http://127.0.0.1:9' },
        policy: 'ask',
        approver: refusingApprover,
        title: 'New chat',
      })
      expect(hiddenByHost()).toContain(dataDir)
    } finally {
      store.close()
    }
  })

  it('no host calls the process-wide setup itself (one owner: session/data-folder.ts)', () => {
    const main = path.resolve(import.meta.dirname, '..')
    const offenders: string[] = []
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name)
        if (entry.isDirectory()) walk(full)
        else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) {
          const rel = path.relative(main, full)
          if (rel === path.join('session', 'data-folder.ts')) continue
          // A call, not the definition (containment/ defines both).
          if (/(?<!function )\b(hideFromCommands|keepSecretsScansIn)\(/.test(fs.readFileSync(full, 'utf8')))
            offenders.push(rel)
        }
      }
    }
    walk(main)
    expect(offenders).toEqual([])
  })
})
