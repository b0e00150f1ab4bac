import zlib from 'node:zlib'
import type { z } from 'zod'
import { errorMessage } from '../../shared/errors'
import { stepwiseEventSchema, upgradeApprovalPayload, type StepwiseEvent } from '../../shared/protocol'
import { sha256 } from '../snapshot/blobs'
import type { ImportWriter } from '../store/bundles'
import { newSessionId } from '../store/store'
import type { Store } from '../store/types'
import { checkedManifest, mapSnapshotIds, UnsafePathError } from './bundle-checks'
import type { BundleCounts } from './bundle-export'
import { BundleError, FIRST_OPTIONAL_RECORD, openBundle, RECORD } from './bundle-format'
import {
  bundleCountsSchema,
  bundleEventSchema,
  bundleMetaSchema,
  bundleSessionSchema,
  bundleSnapshotSchema,
  bundleTrafficSchema,
  decodeBlobRecord,
  decodeJsonRecord,
  type BundleBlob,
  type BundleEvent,
  type BundleSession,
  type BundleSnapshot,
  type BundleTraffic,
} from './bundle-records'

export interface ImportBundleOptions {
  /** The project folder the session belongs to here (resolved); default: the one it was recorded in. */
  repo?: string
}

export interface ImportBundleResult extends BundleCounts {
  sessionId: string
  /** The id in the bundle; differs from `sessionId` when that id was taken here. */
  originalId: string
  repo: string
  /** Blobs this store did not hold yet. */
  newBlobs: number
}

const ORDER: number[] = [
  RECORD.meta,
  RECORD.session,
  RECORD.snapshot,
  RECORD.blob,
  RECORD.event,
  RECORD.traffic,
  RECORD.end,
]
const BLOB_STAGE = ORDER.indexOf(RECORD.blob)

function decodeStored(encoding: number, data: Buffer, size: number): Buffer {
  const opts = { maxOutputLength: Math.max(size, 1) }
  if (encoding === 0) return data
  if (encoding === 1) return zlib.inflateRawSync(data, opts)
  if (encoding === 2) return zlib.brotliDecompressSync(data, opts)
  throw new Error(`unknown encoding ${encoding}`)
}

type Refuse = (code: 'corrupt' | 'unsafe-path', why: string) => never

/**
 * One import's fold: each decoded record, in bundle order, is checked against what came before
 * and written through the store's import writer. Snapshots wait until the blobs are in, so the
 * manifests they name are known whole before a row points at them.
 */
class ImportFold {
  private original: BundleSession | undefined
  private sessionId = ''
  private repo = ''
  private readonly snapshots: BundleSnapshot[] = []
  private readonly manifestHashes = new Set<string>()
  /** File blobs the manifests need → their size; blobs the bundle carried → their size. */
  private readonly needed = new Map<string, number>()
  private readonly carried = new Map<string, number>()
  private readonly snapshotIds = new Map<number, number>()
  private lastSeq = 0
  private newBlobs = 0
  readonly counts: BundleCounts = { events: 0, traffic: 0, snapshots: 0, blobs: 0 }

  constructor(
    private readonly store: Store,
    private readonly writer: ImportWriter,
    private readonly refuse: Refuse,
    private readonly repoHere: string | undefined,
  ) {}

  get hasSession(): boolean {
    return this.original !== undefined
  }

  session(s: BundleSession): void {
    this.original = s
    this.sessionId = this.store.getSession(s.id) ? newSessionId() : s.id
    this.repo = this.repoHere ?? s.repo
    // The parent link survives only when the parent is here too (the events keep it regardless).
    const parentHere = s.parentId ? this.store.getSession(s.parentId) !== undefined : false
    this.writer.session({
      id: this.sessionId,
      repo: this.repo,
      title: s.title,
      provider: s.provider,
      model: s.model,
      status: s.status,
      createdAt: s.createdAt,
      updatedAt: s.updatedAt,
      parentId: parentHere ? (s.parentId ?? null) : null,
      forkSeq: parentHere ? (s.forkSeq ?? null) : null,
    })
  }

  snapshot(s: BundleSnapshot): void {
    this.snapshots.push(s)
    this.manifestHashes.add(s.manifestHash)
    this.counts.snapshots++
  }

  blob(b: BundleBlob): void {
    let raw: Buffer | undefined
    try {
      raw = decodeStored(b.encoding, b.data, b.size)
    } catch {
      // reported below
    }
    if (!raw || raw.length !== b.size || sha256(raw) !== b.hash)
      this.refuse('corrupt', `blob ${b.hash} does not match its hash (corrupt snapshot data)`)
    if (this.manifestHashes.has(b.hash)) this.noteManifest(b.hash, raw)
    this.carried.set(b.hash, b.size)
    if (this.writer.blob(b.hash, b)) this.newBlobs++
    this.counts.blobs++
  }

  private noteManifest(hash: string, raw: Buffer): void {
    try {
      for (const f of checkedManifest(raw))
        if (!this.manifestHashes.has(f.hash)) this.needed.set(f.hash, f.size)
    } catch (err) {
      if (err instanceof UnsafePathError)
        this.refuse('unsafe-path', `a snapshot would write outside the project: ${err.message}`)
      this.refuse('corrupt', `snapshot manifest ${hash} is invalid: ${errorMessage(err)}`)
    }
  }

  /** After the last blob: every manifest and file it names is carried; the snapshot rows go in. */
  finishBlobs(): void {
    for (const hash of this.manifestHashes)
      if (!this.carried.has(hash)) this.refuse('corrupt', `snapshot manifest ${hash} is missing`)
    for (const [hash, size] of this.needed) {
      const got = this.carried.get(hash)
      if (got === undefined) this.refuse('corrupt', `blob ${hash}, named by a snapshot, is missing`)
      if (got !== size)
        this.refuse('corrupt', `blob ${hash} holds ${got} bytes where its manifest says ${size}`)
    }
    const original = this.original!
    for (const s of this.snapshots) {
      const sessionId =
        s.sessionId === original.id
          ? this.sessionId
          : s.sessionId && this.store.getSession(s.sessionId)
            ? s.sessionId
            : null
      const id = this.writer.snapshot({
        ...s,
        sessionId,
        root: s.root === original.repo ? this.repo : s.root,
      })
      this.snapshotIds.set(s.id, id)
    }
  }

  event(r: BundleEvent): void {
    const { seq } = r
    if (seq <= this.lastSeq) this.refuse('corrupt', 'its events are not in step order')
    this.lastSeq = seq
    // A bundle written before the one approval subject still imports (protocol/approval.ts).
    const fields = r.type === 'approval.requested' ? upgradeApprovalPayload(r.payload) : r.payload
    const checked = stepwiseEventSchema.safeParse({
      ...fields,
      sessionId: this.sessionId,
      seq,
      ts: r.ts,
      type: r.type,
    })
    if (!checked.success)
      this.refuse('corrupt', `event ${seq} (${r.type}) is not one this version of Stepwise reads`)
    let event: StepwiseEvent = mapSnapshotIds(checked.data, (id) => {
      const mapped = this.snapshotIds.get(id)
      if (mapped === undefined)
        this.refuse('corrupt', `event ${seq} names snapshot ${id}, which it does not carry`)
      return mapped
    })
    if (event.type === 'session.started' && this.repoHere) event = { ...event, repo: this.repo }
    const { sessionId: _s, seq: _q, ts, type, ...rest } = event
    this.writer.event(this.sessionId, { seq, ts, type, payload: JSON.stringify(rest) })
    this.counts.events++
  }

  traffic(t: BundleTraffic): void {
    this.writer.traffic(this.sessionId, { ...t, status: t.status ?? null })
    this.counts.traffic++
  }

  end(e: BundleCounts): void {
    const c = this.counts
    if (
      e.events !== c.events ||
      e.traffic !== c.traffic ||
      e.snapshots !== c.snapshots ||
      e.blobs !== c.blobs
    )
      this.refuse('corrupt', 'its record counts do not match its end record')
  }

  result(): ImportBundleResult {
    return {
      sessionId: this.sessionId,
      originalId: this.original!.id,
      repo: this.repo,
      newBlobs: this.newBlobs,
      ...this.counts,
    }
  }
}

/** Each JSON record kind: decoded with its schema (refused, named, when it does not decode) into the fold. */
function jsonKinds(fold: ImportFold, refuse: Refuse): Map<number, (payload: Buffer) => void> {
  const kind =
    <T>(what: string, schema: z.ZodType<T>, take: (value: T) => void) =>
    (payload: Buffer): void => {
      const value = decodeJsonRecord(schema, payload)
      if (value === undefined) refuse('corrupt', `its ${what} record is malformed`)
      take(value)
    }
  return new Map([
    [RECORD.meta, kind('meta', bundleMetaSchema, () => undefined)],
    [RECORD.session, kind('session', bundleSessionSchema, (s) => fold.session(s))],
    [RECORD.snapshot, kind('snapshot', bundleSnapshotSchema, (s) => fold.snapshot(s))],
    [RECORD.event, kind('event', bundleEventSchema, (e) => fold.event(e))],
    [RECORD.traffic, kind('traffic', bundleTrafficSchema, (t) => fold.traffic(t))],
    [RECORD.end, kind('end', bundleCountsSchema, (e) => fold.end(e))],
  ])
}

/**
 * Imports a bundle into `store`, all or nothing: the header, the trailer's
 * length and checksum, every blob's hash and every manifest path are checked,
 * and every row is written in one transaction the store owns, so a refused bundle
 * leaves the store as it was. Throws BundleError (for the user) when refused.
 */
export function importBundle(store: Store, file: string, opts: ImportBundleOptions = {}): ImportBundleResult {
  const bundle = openBundle(file)
  const refuse: Refuse = (code, why) => {
    throw new BundleError(code, `${file} was refused: ${why}. Nothing was imported.`)
  }
  return store.bundles.importing((writer) => {
    const fold = new ImportFold(store, writer, refuse, opts.repo)
    const kinds = jsonKinds(fold, refuse)
    let stage = -1
    let ended = false
    for (const { kind, payload } of bundle.records()) {
      if (ended) refuse('corrupt', 'it has records after its end record')
      if (kind >= FIRST_OPTIONAL_RECORD) continue // optional, from a newer minor version
      const at = ORDER.indexOf(kind)
      if (at < 0) {
        throw new BundleError(
          'newer-version',
          `${file} holds a kind of record (${kind}) this version of Stepwise does not know; update Stepwise to import it. Nothing was imported.`,
        )
      }
      if (at < stage) refuse('corrupt', 'its records are out of order')
      if (stage <= BLOB_STAGE && at > BLOB_STAGE) {
        if (!fold.hasSession) refuse('corrupt', 'it has no session record')
        fold.finishBlobs()
      }
      if ((kind === RECORD.meta || kind === RECORD.session) && at === stage)
        refuse('corrupt', 'it repeats its header records')
      stage = at
      if (kind === RECORD.blob) {
        fold.blob(decodeBlobRecord(payload) ?? refuse('corrupt', 'a blob record is cut short'))
        continue
      }
      kinds.get(kind)!(payload)
      ended = kind === RECORD.end
    }
    if (!ended) refuse('corrupt', 'it has no end record')
    return fold.result()
  })
}
