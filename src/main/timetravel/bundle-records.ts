import { z } from 'zod'
import { isRecord } from '../../shared/records'

/**
 * The records of a session bundle (docs/session-format.md), as zod schemas: an import decodes
 * each record with these and folds typed records into the store (bundle-import.ts); an export
 * writes the same shapes (bundle-export.ts). A record that does not decode refuses the bundle.
 */

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/)

/** Who wrote the bundle; read for its shape only. */
export const bundleMetaSchema = z.looseObject({})

/** The session row as the exporting store had it. */
export const bundleSessionSchema = z.object({
  id: z.string().min(1),
  repo: z.string(),
  title: z.string(),
  provider: z.string(),
  model: z.string(),
  status: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  parentId: z.string().nullish(),
  forkSeq: z.number().int().nullish(),
})
export type BundleSession = z.infer<typeof bundleSessionSchema>

export const bundleSnapshotSchema = z.object({
  /** The id in the exporting store: events name it; the import maps it to the id it gets here. */
  id: z.number().int(),
  sessionId: z.string().nullable(),
  root: z.string(),
  label: z.string().nullable(),
  createdAt: z.number(),
  /** Always a whole manifest's hash (an export resolves deltas). */
  manifestHash: sha256Hex,
  fileCount: z.number().int(),
  totalBytes: z.number(),
})
export type BundleSnapshot = z.infer<typeof bundleSnapshotSchema>

/** An event: the envelope, and its own fields as the store keeps them (checked by the protocol's schema). */
export const bundleEventSchema = z.object({
  seq: z.number().int().positive(),
  ts: z.number(),
  type: z.string(),
  // Checked whole by the protocol's event schema next; here only its kind, without copying it.
  payload: z.custom<Record<string, unknown>>(isRecord),
})
export type BundleEvent = z.infer<typeof bundleEventSchema>

export const bundleTrafficSchema = z.object({
  ts: z.number(),
  direction: z.enum(['request', 'response']),
  provider: z.string(),
  url: z.string(),
  status: z.number().nullish(),
  body: z.string(),
})
export type BundleTraffic = z.infer<typeof bundleTrafficSchema>

export const bundleCountsSchema = z.object({
  events: z.number().int(),
  traffic: z.number().int(),
  snapshots: z.number().int(),
  blobs: z.number().int(),
})

/** A blob record, binary: sha256 (32 bytes), encoding (u8), raw size (u64 BE), stored data. */
export interface BundleBlob {
  hash: string
  encoding: number
  size: number
  data: Buffer
}

const BLOB_HEAD = 41

export function decodeBlobRecord(payload: Buffer): BundleBlob | undefined {
  if (payload.length < BLOB_HEAD) return undefined
  return {
    hash: payload.subarray(0, 32).toString('hex'),
    encoding: payload.readUInt8(32),
    size: Number(payload.readBigUInt64BE(33)),
    data: Buffer.from(payload.subarray(BLOB_HEAD)),
  }
}

/** The payload of a blob record (the inverse of decodeBlobRecord), as head and data. */
export function encodeBlobRecord(
  hash: string,
  blob: { size: number; encoding: number; data: Buffer },
): Buffer[] {
  const head = Buffer.alloc(BLOB_HEAD)
  Buffer.from(hash, 'hex').copy(head, 0)
  head.writeUInt8(blob.encoding, 32)
  head.writeBigUInt64BE(BigInt(blob.size), 33)
  return [head, blob.data]
}

/** A JSON record decoded with `schema`; undefined when it is not JSON or not of that shape. */
export function decodeJsonRecord<T>(schema: z.ZodType<T>, payload: Buffer): T | undefined {
  let value: unknown
  try {
    value = JSON.parse(payload.toString('utf8'))
  } catch {
    return undefined
  }
  const parsed = schema.safeParse(value)
  return parsed.success ? parsed.data : undefined
}
