import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it, onTestFinished } from 'vitest'
import { findProjectSecrets } from '../containment/project-secrets'
import { TRACK_MIN_DIRS, lastRefresh, refreshProjectSecrets, setSecretsTracking } from './secrets-mask'

/** A tree with enough folders for the tracker to be used: d0/s0 … d{n}/s{m}. */
function tree(dirs: number): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-mask-'))
  onTestFinished(() => fs.rmSync(root, { recursive: true, force: true }))
  for (let i = 0; i < dirs; i++) {
    const d = path.join(root, `d${i % 20}`, `s${i}`)
    fs.mkdirSync(d, { recursive: true })
    fs.writeFileSync(path.join(d, 'f.txt'), 'x')
  }
  fs.writeFileSync(path.join(root, '.env'), 'K=v\n')
  return root
}

const sorted = (r: { secrets: string[] }) => [...r.secrets].sort()

afterEach(() => setSecretsTracking(process.platform === 'linux'))

describe('refreshProjectSecrets with the change tracker', () => {
  it.runIf(process.platform === 'linux')(
    'stats no folder when nothing changed, and still sees a secret created deep down',
    async () => {
      setSecretsTracking(true)
      const root = tree(TRACK_MIN_DIRS + 50)
      const first = await refreshProjectSecrets(root)
      expect(sorted(first)).toEqual([path.join(root, '.env')])
      // The first walk after the watch started checks it with stats; the next ones trust it.
      await refreshProjectSecrets(root)
      expect(lastRefresh.get(root)?.tracked).toBe(false)
      await refreshProjectSecrets(root)
      expect(lastRefresh.get(root)).toEqual({ statted: 0, tracked: true })

      const deep = path.join(root, 'd3', 's23', 'id_rsa')
      fs.writeFileSync(deep, 'key')
      const after = await refreshProjectSecrets(root)
      expect(sorted(after)).toEqual([path.join(root, '.env'), deep].sort())
      expect(lastRefresh.get(root)?.tracked).toBe(true)
      expect(lastRefresh.get(root)!.statted).toBeLessThan(5)

      // A new folder holding a secret: found, and the watch starts afresh (then is checked once).
      fs.mkdirSync(path.join(root, 'd4', 'new'))
      fs.writeFileSync(path.join(root, 'd4', 'new', 'server.pem'), 'x')
      const grown = await refreshProjectSecrets(root)
      expect(grown.secrets).toContain(path.join(root, 'd4', 'new', 'server.pem'))
      // The same as a full stat walk would find.
      expect(sorted(grown)).toEqual(sorted(findProjectSecrets(root)))
      fs.rmSync(deep)
      expect(sorted(await refreshProjectSecrets(root))).toEqual(sorted(findProjectSecrets(root)))
    },
  )

  it('falls back to the stat walk when tracking is off or the tree is small', async () => {
    setSecretsTracking(false)
    const big = tree(TRACK_MIN_DIRS + 10)
    await refreshProjectSecrets(big)
    await refreshProjectSecrets(big)
    expect(lastRefresh.get(big)?.tracked).toBe(false)
    expect(lastRefresh.get(big)!.statted).toBeGreaterThan(TRACK_MIN_DIRS)
    setSecretsTracking(true)
    const small = tree(10)
    for (let i = 0; i < 3; i++) await refreshProjectSecrets(small)
    expect(lastRefresh.get(small)?.tracked).toBe(false)
    fs.writeFileSync(path.join(small, 'd1', 's1', '.npmrc'), 'x')
    expect((await refreshProjectSecrets(small)).secrets).toContain(path.join(small, 'd1', 's1', '.npmrc'))
  })
})

describe('secret names, as the denylist matches them', () => {
  it('finds them whatever their letter case (.ENV, Server.PEM, ID_RSA)', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-mask-'))
    onTestFinished(() => fs.rmSync(root, { recursive: true, force: true }))
    fs.mkdirSync(path.join(root, 'keys'))
    const names = [
      '.ENV',
      'Prod.Env',
      '.Env.Local',
      'keys/Server.PEM',
      'keys/ID_RSA',
      'keys/.NPMRC',
      'keys/x.KEY',
    ]
    for (const n of names) fs.writeFileSync(path.join(root, n), 'x')
    fs.writeFileSync(path.join(root, 'environment.ts'), 'x')
    expect(sorted(findProjectSecrets(root))).toEqual(names.map((n) => path.join(root, n)).sort())
  })
})
