import fs from 'node:fs'
import zlib from 'node:zlib'
import { PROTOCOL_VERSION, type StepwiseEvent } from '../../shared/protocol'
import { BlobError, createBlobStore, encodeBlob, sha256 } from '../snapshot/blobs'
import { decodeFullManifest, encodeManifest, isManifestDelta } from '../snapshot/manifest'
import { createManifestStore } from '../snapshot/manifestStore'
import type { SnapshotRow } from '../snapshot/snapshotReads'
import type { SnapshotFile, Store } from '../store/types'
import { VERSION } from '../version'
import { snapshotIdsOf } from './bundle-checks'
import { BundleWriter, RECORD, type BundleWriterOptions } from './bundle-format'
import { snapshotTables } from '../store/snapshot-tables'

export interface BundleCounts {
  events: number
  traffic: number
  snapshots: number
  blobs: number
}

export interface ExportBundleResult extends BundleCounts {
  file: string
  /** Size of the bundle file in bytes. */
  bytes: number
}

/** Rows per query: the session is read in pages, so memory stays bounded by a page and a frame. */
const PAGE = 500

interface StoredBlob {
  size: number
  encoding: number
  data: Buffer
}

function decode(blob: StoredBlob): Buffer {
  if (blob.encoding === 0) return blob.data
  if (blob.encoding === 1) return zlib.inflateRawSync(blob.data)
  if (blob.encoding === 2) return zlib.brotliDecompressSync(blob.data)
  throw new Error(`unknown blob encoding ${blob.encoding}`)
}

/** The payload of a blob record: sha256 (32 bytes), encoding (u8), raw size (u64 BE), stored data. */
export function blobRecord(hash: string, blob: StoredBlob): Buffer[] {
  const head = Buffer.alloc(41)
  Buffer.from(hash, 'hex').copy(head, 0)
  head.writeUInt8(blob.encoding, 32)
  head.writeBigUInt64BE(BigInt(blob.size), 33)
  return [head, blob.data]
}

interface FullManifest {
  stored: StoredBlob
  files: readonly SnapshotFile[]
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Writes session `sessionId` to `file` as a bundle (docs/session-format.md): the
 * session row, the snapshots its events refer to with exactly the blobs they
 * need, every event and all its traffic. Written to a temporary name and renamed,
 * so a failed export leaves no half file. Every blob is verified as it is read:
 * a store with a corrupt blob refuses to export rather than pass the damage on.
 */
export async function exportBundle(
  store: Store,
  sessionId: string,
  file: string,
  opts: BundleWriterOptions = {},
): Promise<ExportBundleResult> {
  const session = store.getSession(sessionId)
  if (!session) throw new Error(`exportBundle: no session ${sessionId}`)
  const db = store.db
  const eventPage = db.prepare<
    [string, number, number],
    { seq: number; ts: number; type: string; payload: string }
  >('SELECT seq, ts, type, payload FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?')
  const trafficPage = db.prepare<
    [string, number, number],
    {
      id: number
      ts: number
      direction: string
      provider: string
      url: string
      status: number | null
      body: string
    }
  >(
    'SELECT id, ts, direction, provider, url, status, body FROM traffic WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?',
  )
  const snapshotRow = db.prepare<[number], SnapshotRow>('SELECT * FROM snapshots WHERE id = ?')
  const ownSnapshots = db
    .prepare<[string], number>('SELECT id FROM snapshots WHERE session_id = ? ORDER BY id')
    .pluck()
  const blobRow = db.prepare<[string], StoredBlob>('SELECT size, encoding, data FROM blobs WHERE hash = ?')

  const readBlob = (hash: string, what: string): { stored: StoredBlob; raw: Buffer } => {
    const stored = blobRow.get(hash)
    if (!stored)
      throw new Error(
        `Cannot export: the snapshot data for ${what} (blob ${hash}) is missing from the store.`,
      )
    let raw: Buffer
    try {
      raw = decode(stored)
    } catch {
      throw new Error(`Cannot export: the snapshot data for ${what} (blob ${hash}) is corrupt.`)
    }
    if (raw.length !== stored.size || sha256(raw) !== hash)
      throw new Error(
        `Cannot export: the snapshot data for ${what} (blob ${hash}) no longer matches its hash.`,
      )
    return { stored, raw }
  }

  // A bundle carries every manifest whole: a delta in the store (manifest.ts) is resolved here.
  const deltas = createManifestStore(createBlobStore(snapshotTables(db).blobs))
  const resolved = (hash: string): readonly SnapshotFile[] => {
    try {
      return deltas.load(hash).files
    } catch (err) {
      if (err instanceof BlobError) throw new Error(`Cannot export: ${err.message}`, { cause: err })
      throw err
    }
  }
  /** The hash of the manifest as a bundle carries it, without decoding a whole one. */
  const wholeHash = (hash: string): string => {
    const { raw } = readBlob(hash, 'a snapshot manifest')
    return isManifestDelta(raw) ? sha256(encodeManifest(resolved(hash))) : hash
  }
  /** The manifest as a bundle carries it: the stored blob when it is whole, else the resolved delta. */
  const readManifest = (hash: string): FullManifest => {
    const { stored, raw } = readBlob(hash, 'a snapshot manifest')
    if (!isManifestDelta(raw)) return { stored, files: decodeFullManifest(raw) }
    const files = resolved(hash)
    const whole = encodeManifest(files)
    return { stored: { size: whole.length, ...encodeBlob(whole) }, files }
  }

  // Pass 1 over the events: which snapshots they name (the events themselves are written later).
  const snapshotIds = new Set<number>(ownSnapshots.all(sessionId))
  let eventCount = 0
  for (let after = 0; ;) {
    const rows = eventPage.all(sessionId, after, PAGE)
    if (rows.length === 0) break
    for (const r of rows) {
      const event = {
        sessionId,
        seq: r.seq,
        ts: r.ts,
        type: r.type,
        ...JSON.parse(r.payload),
      } as StepwiseEvent
      for (const id of snapshotIdsOf(event)) snapshotIds.add(id)
    }
    eventCount += rows.length
    after = rows[rows.length - 1].seq
  }

  const tmp = `${file}.partial-${process.pid}`
  const writer = new BundleWriter(tmp, opts)
  try {
    writer.json(RECORD.meta, {
      stepwiseVersion: VERSION,
      protocolVersion: PROTOCOL_VERSION,
      exportedAt: Date.now(),
      sessionId,
      repo: session.repo,
    })
    writer.json(RECORD.session, session)

    // Whole manifest hash → the stored one to read it from. Only hashes are kept: each manifest is
    // read again when its turn to be written comes, so memory holds one at a time.
    const manifests = new Map<string, string>()
    const wholeOf = new Map<string, string>()
    const snapshots = [...snapshotIds].sort((a, b) => a - b)
    for (const id of snapshots) {
      const row = snapshotRow.get(id)
      if (!row)
        throw new Error(
          `Cannot export: snapshot ${id}, named by the session's events, is missing from the store.`,
        )
      let whole = wholeOf.get(row.manifest_hash)
      if (!whole) wholeOf.set(row.manifest_hash, (whole = wholeHash(row.manifest_hash)))
      manifests.set(whole, row.manifest_hash)
      writer.json(RECORD.snapshot, {
        id: row.id,
        sessionId: row.session_id,
        root: row.root,
        label: row.label,
        createdAt: row.created_at,
        manifestHash: whole,
        fileCount: row.file_count,
        totalBytes: row.total_bytes,
      })
    }
    writer.flush()

    // Manifests first, so a reader knows which blobs are manifests before it meets them.
    const contents = new Set<string>()
    for (const [hash, storedHash] of manifests) {
      const { stored, files } = readManifest(storedHash)
      for (const f of files) if (!manifests.has(f.hash)) contents.add(f.hash)
      writer.add(RECORD.blob, blobRecord(hash, stored), { precompressed: stored.encoding !== 0 })
    }
    let n = 0
    for (const hash of contents) {
      const { stored } = readBlob(hash, 'a file')
      writer.add(RECORD.blob, blobRecord(hash, stored), { precompressed: stored.encoding !== 0 })
      if (++n % PAGE === 0) await turn()
    }
    writer.flush()

    let written = 0
    for (let after = 0; ;) {
      const rows = eventPage.all(sessionId, after, PAGE)
      if (rows.length === 0) break
      for (const r of rows) {
        // The stored payload is JSON already: spliced in, not parsed and re-serialised.
        const json = `{"seq":${r.seq},"ts":${r.ts},"type":${JSON.stringify(r.type)},"payload":${r.payload}}`
        writer.add(RECORD.event, [Buffer.from(json, 'utf8')])
      }
      written += rows.length
      after = rows[rows.length - 1].seq
      await turn()
    }
    if (written !== eventCount)
      throw new Error('Cannot export: the session gained events while it was exported.')

    let trafficCount = 0
    for (let after = 0; ;) {
      const rows = trafficPage.all(sessionId, after, PAGE)
      if (rows.length === 0) break
      for (const r of rows) {
        const { id: _id, ...entry } = r
        writer.json(RECORD.traffic, entry)
      }
      trafficCount += rows.length
      after = rows[rows.length - 1].id
      await turn()
    }

    const counts: BundleCounts = {
      events: eventCount,
      traffic: trafficCount,
      snapshots: snapshots.length,
      blobs: manifests.size + contents.size,
    }
    writer.json(RECORD.end, counts)
    const bytes = writer.finish()
    fs.renameSync(tmp, file)
    return { file, bytes, ...counts }
  } catch (err) {
    writer.abort()
    fs.rmSync(tmp, { force: true })
    throw err
  }
}
