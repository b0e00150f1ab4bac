import fs from 'node:fs'
import zlib from 'node:zlib'
import { PROTOCOL_VERSION } from '../../shared/protocol'
import { BlobError, createBlobStore, encodeBlob, sha256 } from '../snapshot/blobs'
import { decodeFullManifest, encodeManifest, isManifestDelta } from '../snapshot/manifest'
import { createManifestStore } from '../snapshot/manifestStore'
import type { StoredBlob } from '../store/bundles'
import { storedEventOf } from '../store/events'
import type { SnapshotFile, Store } from '../store/types'
import { VERSION } from '../version'
import { snapshotIdsOf } from './bundle-checks'
import { BundleWriter, RECORD, type BundleWriterOptions } from './bundle-format'
import { snapshotTablesOf } from '../store/snapshot-tables'
import { encodeBlobRecord, type BundleSnapshot, type BundleTraffic } from './bundle-records'

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

function decode(blob: StoredBlob): Buffer {
  if (blob.encoding === 0) return blob.data
  if (blob.encoding === 1) return zlib.inflateRawSync(blob.data)
  if (blob.encoding === 2) return zlib.brotliDecompressSync(blob.data)
  throw new Error(`unknown blob encoding ${blob.encoding}`)
}

interface FullManifest {
  stored: StoredBlob
  files: readonly SnapshotFile[]
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

type BundleRows = Store['bundles']

/** The store's blobs as an export reads them: verified, and every manifest whole. */
interface ExportBlobs {
  /** A blob, checked against its hash; `what` names it in the error. */
  read(hash: string, what: string): { stored: StoredBlob; raw: Buffer }
  /** The hash of the manifest as a bundle carries it, without decoding a whole one. */
  wholeHash(hash: string): string
  /** The manifest as a bundle carries it: the stored blob when it is whole, else the resolved delta. */
  manifest(hash: string): FullManifest
}

function exportBlobs(store: Store): ExportBlobs {
  const rows = store.bundles
  const read = (hash: string, what: string): { stored: StoredBlob; raw: Buffer } => {
    const stored = rows.blob(hash)
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
  const deltas = createManifestStore(createBlobStore(snapshotTablesOf(store).blobs))
  const resolved = (hash: string): readonly SnapshotFile[] => {
    try {
      return deltas.load(hash).files
    } catch (err) {
      if (err instanceof BlobError) throw new Error(`Cannot export: ${err.message}`, { cause: err })
      throw err
    }
  }
  return {
    read,
    wholeHash(hash) {
      const { raw } = read(hash, 'a snapshot manifest')
      return isManifestDelta(raw) ? sha256(encodeManifest(resolved(hash))) : hash
    },
    manifest(hash) {
      const { stored, raw } = read(hash, 'a snapshot manifest')
      if (!isManifestDelta(raw)) return { stored, files: decodeFullManifest(raw) }
      const files = resolved(hash)
      const whole = encodeManifest(files)
      return { stored: { size: whole.length, ...encodeBlob(whole) }, files }
    },
  }
}

/** Pass 1 over the events: which snapshots they name (the events themselves are written later). */
function namedSnapshots(
  rows: BundleRows,
  sessionId: string,
): { snapshotIds: Set<number>; eventCount: number } {
  const snapshotIds = new Set<number>(rows.ownSnapshotIds(sessionId))
  let eventCount = 0
  for (let after = 0; ;) {
    const page = rows.eventPage(sessionId, after, PAGE)
    if (page.length === 0) break
    for (const r of page) for (const id of snapshotIdsOf(storedEventOf(sessionId, r))) snapshotIds.add(id)
    eventCount += page.length
    after = page[page.length - 1].seq
  }
  return { snapshotIds, eventCount }
}

/**
 * Writes the snapshot records; answers whole manifest hash → the stored one to read it from.
 * Only hashes are kept: each manifest is read again when its turn to be written comes, so memory
 * holds one at a time.
 */
function writeSnapshots(
  writer: BundleWriter,
  ids: readonly number[],
  rows: BundleRows,
  blobs: ExportBlobs,
): Map<string, string> {
  const manifests = new Map<string, string>()
  const wholeOf = new Map<string, string>()
  for (const id of ids) {
    const row = rows.snapshot(id)
    if (!row)
      throw new Error(
        `Cannot export: snapshot ${id}, named by the session's events, is missing from the store.`,
      )
    let whole = wholeOf.get(row.manifestHash)
    if (!whole) wholeOf.set(row.manifestHash, (whole = blobs.wholeHash(row.manifestHash)))
    manifests.set(whole, row.manifestHash)
    const record: BundleSnapshot = {
      id: row.id,
      sessionId: row.sessionId,
      root: row.root,
      label: row.label,
      createdAt: row.createdAt,
      manifestHash: whole,
      fileCount: row.fileCount,
      totalBytes: row.totalBytes,
    }
    writer.json(RECORD.snapshot, record)
  }
  writer.flush()
  return manifests
}

/** Writes the manifests first (a reader knows which blobs are manifests before it meets them), then the files' blobs; their count. */
async function writeBlobs(
  writer: BundleWriter,
  manifests: ReadonlyMap<string, string>,
  blobs: ExportBlobs,
): Promise<number> {
  const contents = new Set<string>()
  for (const [hash, storedHash] of manifests) {
    const { stored, files } = blobs.manifest(storedHash)
    for (const f of files) if (!manifests.has(f.hash)) contents.add(f.hash)
    writer.add(RECORD.blob, encodeBlobRecord(hash, stored), { precompressed: stored.encoding !== 0 })
  }
  let n = 0
  for (const hash of contents) {
    const { stored } = blobs.read(hash, 'a file')
    writer.add(RECORD.blob, encodeBlobRecord(hash, stored), { precompressed: stored.encoding !== 0 })
    if (++n % PAGE === 0) await turn()
  }
  writer.flush()
  return manifests.size + contents.size
}

/** Writes every event of the session; how many. */
async function writeEvents(writer: BundleWriter, rows: BundleRows, sessionId: string): Promise<number> {
  let written = 0
  for (let after = 0; ;) {
    const page = rows.eventPage(sessionId, after, PAGE)
    if (page.length === 0) break
    for (const r of page) {
      // The stored payload is JSON already: spliced in, not parsed and re-serialised.
      const json = `{"seq":${r.seq},"ts":${r.ts},"type":${JSON.stringify(r.type)},"payload":${r.payload}}`
      writer.add(RECORD.event, [Buffer.from(json, 'utf8')])
    }
    written += page.length
    after = page[page.length - 1].seq
    await turn()
  }
  return written
}

/** Writes the session's traffic; how many entries. */
async function writeTraffic(writer: BundleWriter, rows: BundleRows, sessionId: string): Promise<number> {
  let count = 0
  for (let after = 0; ;) {
    const page = rows.trafficPage(sessionId, after, PAGE)
    if (page.length === 0) break
    for (const { id: _id, ...entry } of page) {
      const record: BundleTraffic = { ...entry, status: entry.status ?? null }
      writer.json(RECORD.traffic, record)
    }
    count += page.length
    after = page[page.length - 1].id
    await turn()
  }
  return count
}

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
  const rows = store.bundles
  const blobs = exportBlobs(store)
  const { snapshotIds, eventCount } = namedSnapshots(rows, sessionId)

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
    const snapshots = [...snapshotIds].sort((a, b) => a - b)
    const manifests = writeSnapshots(writer, snapshots, rows, blobs)
    const blobCount = await writeBlobs(writer, manifests, blobs)
    const written = await writeEvents(writer, rows, sessionId)
    if (written !== eventCount)
      throw new Error('Cannot export: the session gained events while it was exported.')
    const trafficCount = await writeTraffic(writer, rows, sessionId)

    const counts: BundleCounts = {
      events: eventCount,
      traffic: trafficCount,
      snapshots: snapshots.length,
      blobs: blobCount,
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
