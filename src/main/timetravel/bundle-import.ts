import zlib from 'node:zlib'
import { stepwiseEventSchema, upgradeApprovalPayload, type StepwiseEvent } from '../../shared/protocol'
import { sha256 } from '../snapshot/blobs'
import { newSessionId } from '../store/store'
import type { SessionRow, Store } from '../store/types'
import { checkedManifest, mapSnapshotIds, UnsafePathError } from './bundle-checks'
import type { BundleCounts } from './bundle-export'
import { BundleError, FIRST_OPTIONAL_RECORD, openBundle, RECORD } from './bundle-format'

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

interface SnapshotRecord {
  id: number
  sessionId: string | null
  root: string
  label: string | null
  createdAt: number
  manifestHash: string
  fileCount: number
  totalBytes: number
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

function decodeStored(encoding: number, data: Buffer, size: number): Buffer {
  const opts = { maxOutputLength: Math.max(size, 1) }
  if (encoding === 0) return data
  if (encoding === 1) return zlib.inflateRawSync(data, opts)
  if (encoding === 2) return zlib.brotliDecompressSync(data, opts)
  throw new Error(`unknown encoding ${encoding}`)
}

/**
 * Imports a bundle into `store`, all or nothing: the header, the trailer's
 * length and checksum, every blob's hash and every manifest path are checked,
 * and every row is written in one transaction, so a refused bundle leaves the
 * store as it was. Throws BundleError (for the user) when refused.
 */
export function importBundle(store: Store, file: string, opts: ImportBundleOptions = {}): ImportBundleResult {
  const bundle = openBundle(file)
  const db = store.db
  const refuse = (code: 'corrupt' | 'unsafe-path', why: string): never => {
    throw new BundleError(code, `${file} was refused: ${why}. Nothing was imported.`)
  }
  const json = (payload: Buffer, what: string): Record<string, unknown> => {
    try {
      const value: unknown = JSON.parse(payload.toString('utf8'))
      if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>
    } catch {
      // reported below
    }
    return refuse('corrupt', `its ${what} record is not a JSON object`)
  }

  const insertSession = db.prepare(
    `INSERT INTO sessions (id, repo, title, provider, model, status, created_at, updated_at, parent_id, fork_seq)
     VALUES (@id, @repo, @title, @provider, @model, @status, @createdAt, @updatedAt, @parentId, @forkSeq)`,
  )
  const insertBlob = db.prepare<[string, number, number, Buffer]>(
    'INSERT OR IGNORE INTO blobs (hash, size, encoding, data) VALUES (?, ?, ?, ?)',
  )
  const insertSnapshot = db.prepare(
    `INSERT INTO snapshots (session_id, root, label, created_at, manifest_hash, file_count, total_bytes)
     VALUES (@sessionId, @root, @label, @createdAt, @manifestHash, @fileCount, @totalBytes)`,
  )
  const insertEvent = db.prepare<[string, number, number, string, string]>(
    'INSERT INTO events (session_id, seq, ts, type, payload) VALUES (?, ?, ?, ?, ?)',
  )
  const insertTraffic = db.prepare(
    `INSERT INTO traffic (session_id, ts, direction, provider, url, status, body)
     VALUES (@sessionId, @ts, @direction, @provider, @url, @status, @body)`,
  )

  const run = db.transaction((): ImportBundleResult => {
    let stage = -1
    let original: SessionRow | undefined
    let sessionId = ''
    let repo = ''
    const snapshots: SnapshotRecord[] = []
    const manifestHashes = new Set<string>()
    /** File blobs the manifests need → their size; blobs the bundle carried → their size. */
    const needed = new Map<string, number>()
    const carried = new Map<string, number>()
    const snapshotIds = new Map<number, number>()
    let lastSeq = 0
    let newBlobs = 0
    const counts: BundleCounts = { events: 0, traffic: 0, snapshots: 0, blobs: 0 }
    let ended = false

    const finishBlobs = () => {
      for (const hash of manifestHashes)
        if (!carried.has(hash)) refuse('corrupt', `snapshot manifest ${hash} is missing`)
      for (const [hash, size] of needed) {
        const got = carried.get(hash)
        if (got === undefined) refuse('corrupt', `blob ${hash}, named by a snapshot, is missing`)
        if (got !== size) refuse('corrupt', `blob ${hash} holds ${got} bytes where its manifest says ${size}`)
      }
      for (const s of snapshots) {
        const info = insertSnapshot.run({
          sessionId:
            s.sessionId === original!.id
              ? sessionId
              : s.sessionId && store.getSession(s.sessionId)
                ? s.sessionId
                : null,
          root: s.root === original!.repo ? repo : s.root,
          label: s.label,
          createdAt: s.createdAt,
          manifestHash: s.manifestHash,
          fileCount: s.fileCount,
          totalBytes: s.totalBytes,
        })
        snapshotIds.set(s.id, Number(info.lastInsertRowid))
      }
    }

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
      if (stage <= ORDER.indexOf(RECORD.blob) && at > ORDER.indexOf(RECORD.blob)) {
        if (!original) refuse('corrupt', 'it has no session record')
        finishBlobs()
      }
      if ((kind === RECORD.meta || kind === RECORD.session) && at === stage)
        refuse('corrupt', 'it repeats its header records')
      stage = at

      switch (kind) {
        case RECORD.meta:
          json(payload, 'meta')
          break
        case RECORD.session: {
          const s = json(payload, 'session') as unknown as SessionRow
          if (typeof s.id !== 'string' || !s.id || typeof s.repo !== 'string' || typeof s.title !== 'string')
            refuse('corrupt', 'its session record is malformed')
          original = s
          sessionId = store.getSession(s.id) ? newSessionId() : s.id
          repo = opts.repo ?? s.repo
          insertSession.run({
            id: sessionId,
            repo,
            title: s.title,
            provider: String(s.provider),
            model: String(s.model),
            status: String(s.status),
            createdAt: Number(s.createdAt),
            updatedAt: Number(s.updatedAt),
            // The parent link survives only when the parent is here too (the events keep it regardless).
            parentId: s.parentId && store.getSession(s.parentId) ? s.parentId : null,
            forkSeq: s.parentId && store.getSession(s.parentId) ? s.forkSeq : null,
          })
          break
        }
        case RECORD.snapshot: {
          const s = json(payload, 'snapshot') as unknown as SnapshotRecord
          if (
            !Number.isInteger(s.id) ||
            typeof s.root !== 'string' ||
            typeof s.manifestHash !== 'string' ||
            !/^[0-9a-f]{64}$/.test(s.manifestHash)
          )
            refuse('corrupt', 'a snapshot record is malformed')
          snapshots.push(s)
          manifestHashes.add(s.manifestHash)
          counts.snapshots++
          break
        }
        case RECORD.blob: {
          if (payload.length < 41) refuse('corrupt', 'a blob record is cut short')
          const hash = payload.subarray(0, 32).toString('hex')
          const encoding = payload.readUInt8(32)
          const size = Number(payload.readBigUInt64BE(33))
          const data = payload.subarray(41)
          let raw: Buffer | undefined
          try {
            raw = decodeStored(encoding, data, size)
          } catch {
            // reported below
          }
          if (!raw || raw.length !== size || sha256(raw) !== hash)
            return refuse('corrupt', `blob ${hash} does not match its hash (corrupt snapshot data)`)
          if (manifestHashes.has(hash)) {
            try {
              for (const f of checkedManifest(raw))
                if (!manifestHashes.has(f.hash)) needed.set(f.hash, f.size)
            } catch (err) {
              if (err instanceof UnsafePathError)
                refuse('unsafe-path', `a snapshot would write outside the project: ${err.message}`)
              refuse('corrupt', `snapshot manifest ${hash} is invalid: ${(err as Error).message}`)
            }
          }
          carried.set(hash, size)
          newBlobs += insertBlob.run(hash, size, encoding, Buffer.from(data)).changes
          counts.blobs++
          break
        }
        case RECORD.event: {
          const r = json(payload, 'event')
          const seq = r.seq
          if (typeof seq !== 'number' || !Number.isInteger(seq) || seq <= lastSeq)
            refuse('corrupt', 'its events are not in step order')
          lastSeq = seq as number
          // A bundle written before the one approval subject still imports (protocol/approval.ts).
          const fields =
            r.type === 'approval.requested'
              ? upgradeApprovalPayload(r.payload as Record<string, unknown>)
              : r.payload
          const checked = stepwiseEventSchema.safeParse({
            ...(fields as object),
            sessionId,
            seq,
            ts: r.ts,
            type: r.type,
          })
          if (!checked.success)
            refuse(
              'corrupt',
              `event ${String(seq)} (${String(r.type)}) is not one this version of Stepwise reads`,
            )
          let event = mapSnapshotIds(checked.data as StepwiseEvent, (id) => {
            const mapped = snapshotIds.get(id)
            if (mapped === undefined)
              refuse('corrupt', `event ${String(seq)} names snapshot ${id}, which it does not carry`)
            return mapped!
          })
          if (event.type === 'session.started' && opts.repo) event = { ...event, repo }
          const { sessionId: _s, seq: _q, ts, type, ...rest } = event as StepwiseEvent
          insertEvent.run(sessionId, seq as number, ts, type, JSON.stringify(rest))
          counts.events++
          break
        }
        case RECORD.traffic: {
          const t = json(payload, 'traffic')
          if (typeof t.body !== 'string' || typeof t.url !== 'string' || typeof t.ts !== 'number')
            refuse('corrupt', 'a traffic record is malformed')
          insertTraffic.run({
            sessionId,
            ts: t.ts,
            direction: String(t.direction),
            provider: String(t.provider),
            url: t.url,
            status: typeof t.status === 'number' ? t.status : null,
            body: t.body,
          })
          counts.traffic++
          break
        }
        case RECORD.end: {
          const e = json(payload, 'end')
          if (
            e.events !== counts.events ||
            e.traffic !== counts.traffic ||
            e.snapshots !== counts.snapshots ||
            e.blobs !== counts.blobs
          )
            refuse('corrupt', 'its record counts do not match its end record')
          ended = true
          break
        }
      }
    }
    if (!ended) refuse('corrupt', 'it has no end record')
    return { sessionId, originalId: original!.id, repo, newBlobs, ...counts }
  })
  return run()
}
