import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { sha256 } from '../snapshot/blobs'
import { encodeManifest } from '../snapshot/manifest'
import { openStore } from '../store/store'
import type { Store } from '../store/types'
import { BundleError, exportBundle, importBundle } from './bundle'
import { encodeBlobRecord as blobRecord } from './bundle-records'
import { unsafePathReason } from './bundle-checks'
import {
  dumpStore,
  jsonRecord,
  RECORD,
  readJsonRecords,
  recordEditingSession,
  rewriteBundle,
} from './bundle-test-support'

let dir: string
let good: string
let sessionId: string
let target: Store

beforeEach(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-bundle-refuse-')))
  const repo = path.join(dir, 'repo')
  fs.mkdirSync(repo)
  fs.writeFileSync(path.join(repo, 'a.txt'), 'one\ntwo\nthree\n')
  const source = openStore(path.join(dir, 'source'))
  sessionId = await recordEditingSession(source, repo)
  good = path.join(dir, 'good.stepwise')
  await exportBundle(source, sessionId, good)
  source.close()
  target = openStore(path.join(dir, 'target'))
  // Something already there, which a refused import must leave exactly as it was.
  const other = target.createSession({ repo, title: 'existing', provider: 'ollama', model: 'm' })
  target.appendEvent(other.id, { type: 'user.message', text: 'keep me' })
})

afterEach(() => {
  target.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

/** Imports `file`, expects a refusal with `code`, and that nothing was written. */
function expectRefused(file: string, code: string, message: RegExp): void {
  const before = dumpStore(target)
  let caught: unknown
  try {
    importBundle(target, file)
  } catch (err) {
    caught = err
  }
  expect(caught).toBeInstanceOf(BundleError)
  expect({ code: (caught as BundleError).code, message: (caught as Error).message }).toEqual({
    code,
    message: expect.stringMatching(message),
  })
  expect(dumpStore(target)).toEqual(before)
}

const crafted = (name: string) => path.join(dir, name)

describe('importing a bundle refuses, writing nothing', () => {
  it('a file that is not a bundle', () => {
    const file = crafted('export.json')
    fs.writeFileSync(file, '{"format":"stepwise.session"}')
    expectRefused(file, 'not-a-bundle', /is not a Stepwise session bundle/)
  })

  it('a bundle of a newer major format version', () => {
    const file = crafted('v2.stepwise')
    rewriteBundle(good, file, (r) => [r], { version: { major: 2, minor: 0 } })
    expectRefused(
      file,
      'newer-version',
      /format 2\.0, written by a newer Stepwise; this version reads format 1\.x/,
    )
  })

  it('a required record kind this version does not know', () => {
    const file = crafted('unknown-kind.stepwise')
    rewriteBundle(good, file, (r) => (r.kind === RECORD.end ? [jsonRecord(0x20, {}), r] : [r]))
    expectRefused(file, 'newer-version', /does not know; update Stepwise/)
  })

  it('a truncated bundle, cut anywhere', () => {
    const bytes = fs.readFileSync(good)
    for (const keep of [bytes.length - 1, bytes.length - 48, Math.floor(bytes.length / 2), 20]) {
      const file = crafted(`cut-${keep}.stepwise`)
      fs.writeFileSync(file, bytes.subarray(0, keep))
      expectRefused(file, 'truncated', /is incomplete/)
    }
  })

  it('a bundle whose bytes were altered (checksum)', () => {
    const bytes = Buffer.from(fs.readFileSync(good))
    bytes[Math.floor(bytes.length / 2)] ^= 0xff
    const file = crafted('flipped.stepwise')
    fs.writeFileSync(file, bytes)
    expectRefused(file, 'corrupt', /checksum does not match/)
  })

  it('a blob whose content does not match its hash', () => {
    const file = crafted('bad-blob.stepwise')
    let done = false
    rewriteBundle(good, file, (r) => {
      if (r.kind !== RECORD.blob || done) return [r]
      const hash = r.payload.subarray(0, 32).toString('hex')
      // Keeps the claimed hash, swaps the bytes: raw encoding, same length.
      const size = Number(r.payload.readBigUInt64BE(33))
      done = true
      return [
        {
          kind: r.kind,
          payload: Buffer.concat(blobRecord(hash, { size, encoding: 0, data: Buffer.alloc(size, 0x41) })),
        },
      ]
    })
    expectRefused(file, 'corrupt', /does not match its hash/)
  })

  const evilPaths = [
    '/etc/passwd',
    '../outside.txt',
    'src/../../outside.txt',
    'src\\..\\..\\outside.txt',
    'C:/Windows/evil.txt',
    '.git/hooks/pre-commit',
    'a//b',
  ]
  for (const evil of evilPaths) {
    it(`a manifest with the path ${JSON.stringify(evil)}`, () => {
      expectRefused(withManifestPath(evil), 'unsafe-path', /would write outside the project: the path/)
    })
  }

  it('a manifest with a NUL inside a path (it no longer decodes as one entry)', () => {
    expectRefused(withManifestPath('a.txt\0../../x 1 644 0 y'), 'corrupt', /manifest .* is invalid/)
  })

  it('a bundle missing a blob a manifest needs', () => {
    const file = crafted('missing.stepwise')
    let dropped = false
    rewriteBundle(good, file, (r) => {
      if (r.kind !== RECORD.blob || dropped) return [r]
      const hash = r.payload.subarray(0, 32).toString('hex')
      const manifests = new Set(readJsonRecords(good, RECORD.snapshot).map((x) => x.manifestHash))
      if (manifests.has(hash)) return [r]
      dropped = true
      return []
    })
    expectRefused(file, 'corrupt', /is missing/)
  })
})

/**
 * The good bundle, with every snapshot pointing at one manifest that lists `evil`
 * (its blob carried, so only the path is wrong).
 */
function withManifestPath(evil: string): string {
  const content = Buffer.from('pwned\n')
  const contentHash = sha256(content)
  const manifest = encodeManifest([
    { path: evil, hash: contentHash, size: content.length, mode: 0o100644, mtimeMs: 0 },
  ])
  const manifestHash = sha256(manifest)
  const file = crafted(`evil-${sha256(evil).slice(0, 8)}.stepwise`)
  let added = false
  rewriteBundle(good, file, (r) => {
    if (r.kind === RECORD.snapshot) {
      const s = JSON.parse(r.payload.toString('utf8')) as Record<string, unknown>
      return [jsonRecord(RECORD.snapshot, { ...s, manifestHash, fileCount: 1, totalBytes: content.length })]
    }
    if (r.kind === RECORD.blob) {
      if (added) return []
      added = true
      return [
        {
          kind: RECORD.blob,
          payload: Buffer.concat(
            blobRecord(manifestHash, { size: manifest.length, encoding: 0, data: manifest }),
          ),
        },
        {
          kind: RECORD.blob,
          payload: Buffer.concat(
            blobRecord(contentHash, { size: content.length, encoding: 0, data: content }),
          ),
        },
      ]
    }
    if (r.kind === RECORD.end) {
      const e = JSON.parse(r.payload.toString('utf8')) as Record<string, number>
      return [jsonRecord(RECORD.end, { ...e, blobs: 2 })]
    }
    return [r]
  })
  return file
}

describe('unsafePathReason', () => {
  it('accepts ordinary project paths and names what is wrong with the others', () => {
    expect(['a.txt', 'src/x/y.ts', '.github/workflows/ci.yml', 'a..b/c'].map(unsafePathReason)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ])
    expect(
      ['', '/x', '..', 'a/./b', 'x\u0007y', 'D:x', 'a\\b', 'A/.GIT/config'].map(unsafePathReason),
    ).toEqual([
      'is empty',
      'is absolute',
      'climbs out with ".."',
      'has an empty or "." segment',
      'holds a control character',
      'starts with a drive letter',
      'holds a backslash (a Windows separator)',
      'reaches into .git',
    ])
  })
})

describe('importing a bundle of a newer minor version', () => {
  it('skips optional records it does not know', () => {
    const file = crafted('v1.1.stepwise')
    rewriteBundle(
      good,
      file,
      (r) => (r.kind === RECORD.traffic ? [jsonRecord(0x90, { future: true }), r] : [r]),
      {
        version: { major: 1, minor: 1 },
      },
    )
    const imported = importBundle(target, file)
    expect(imported.sessionId).toBe(sessionId)
    expect(imported.traffic).toBe(8)
  })
})
