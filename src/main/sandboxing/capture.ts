import { StringDecoder } from 'node:string_decoder'
import type { Redactor } from './redact'

/*
 * A command's output, kept small whatever it prints: the first and last bytes
 * for the model (head + tail, a marker between), and a throttled, capped stream
 * for the timeline. Memory stays flat for a 100 MB print: nothing in the middle
 * is kept. Bytes are decoded as UTF-8 per stream (a character split across two
 * chunks survives); invalid bytes become U+FFFD. With a redactor, secret values
 * are replaced before anything is kept or streamed, also when one is split
 * across two chunks (a few characters wait for the next chunk).
 */

export type OutputStream = 'stdout' | 'stderr'

export interface CaptureLimits {
  /** Bytes kept from the start (default 16 KB). */
  headBytes: number
  /** Bytes kept from the end (default 16 KB). */
  tailBytes: number
  /** Bytes streamed to the timeline before streaming stops (default 1 MB). */
  streamBytes: number
  /** Streamed text is sent in pieces of at least this size, or after `flushMs` (default 8 KB, 50 ms). */
  flushBytes: number
  flushMs: number
}

export const DEFAULT_CAPTURE_LIMITS: CaptureLimits = {
  headBytes: 16 * 1024,
  tailBytes: 16 * 1024,
  streamBytes: 1024 * 1024,
  flushBytes: 8 * 1024,
  flushMs: 50,
}

export const truncatedBytesMarker = (omitted: number) => `[TRUNCATED: ${omitted} bytes omitted]`

export class OutputCapture {
  private readonly decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') }
  private head: Buffer[] = []
  private headSize = 0
  private headFull = false
  private tail: Buffer[] = []
  private tailSize = 0
  /** Bytes of decoded output seen in all. */
  total = 0
  private streamed = 0
  private pending: { stream: OutputStream; text: string } | null = null
  private timer: NodeJS.Timeout | null = null
  /** Per stream, the text the redactor holds back until the next chunk. */
  private readonly held = { stdout: '', stderr: '' }

  constructor(
    private readonly onOutput: ((stream: OutputStream, text: string) => void) | undefined,
    private readonly limits: CaptureLimits = DEFAULT_CAPTURE_LIMITS,
    private readonly redactor?: Redactor,
  ) {}

  push(stream: OutputStream, chunk: Buffer): void {
    this.redacted(stream, this.decoders[stream].write(chunk), false)
  }

  /** Flushes the decoders and the stream; call once, after both pipes have closed. */
  end(): void {
    for (const stream of ['stdout', 'stderr'] as const)
      this.redacted(stream, this.decoders[stream].end(), true)
    this.flush()
  }

  private redacted(stream: OutputStream, text: string, final: boolean): void {
    if (!this.redactor || this.redactor.empty) return this.take(stream, text)
    const { out, keep } = this.redactor.redactStream(this.held[stream] + text, final)
    this.held[stream] = keep
    this.take(stream, out)
  }

  /** The copy the model gets: head, marker, tail. */
  text(): string {
    const omitted = this.total - this.headSize - this.tailSize
    const head = Buffer.concat(this.head).toString('utf8')
    const tail = Buffer.concat(this.tail).toString('utf8')
    if (omitted <= 0) return head + tail
    return `${head}\n${truncatedBytesMarker(omitted)}\n${tail}`
  }

  /** Bytes the model's copy leaves out. */
  get omitted(): number {
    return Math.max(0, this.total - this.headSize - this.tailSize)
  }

  private take(stream: OutputStream, text: string): void {
    if (text === '') return
    const bytes = Buffer.from(text, 'utf8')
    this.total += bytes.length
    this.keep(bytes)
    this.stream(stream, text, bytes.length)
  }

  private keep(bytes: Buffer): void {
    let rest = bytes
    const room = this.headFull ? 0 : this.limits.headBytes - this.headSize
    if (room > 0) {
      const cut = charBoundary(rest, Math.min(room, rest.length))
      if (cut > 0) this.head.push(Buffer.from(rest.subarray(0, cut)))
      this.headSize += cut
      rest = rest.subarray(cut)
      // The head closes at a character boundary; what did not fit goes to the tail.
      if (rest.length > 0) this.headFull = true
    }
    if (rest.length === 0) return
    this.tail.push(rest)
    this.tailSize += rest.length
    while (this.tailSize > this.limits.tailBytes) {
      const first = this.tail[0]
      const excess = this.tailSize - this.limits.tailBytes
      if (first.length <= excess) {
        this.tail.shift()
        this.tailSize -= first.length
      } else {
        const from = charStart(first, excess)
        // Copy, so the big chunk the slice came from can be freed.
        this.tail[0] = Buffer.from(first.subarray(from))
        this.tailSize -= from
        break
      }
    }
  }

  private stream(stream: OutputStream, text: string, size: number): void {
    if (!this.onOutput) return
    if (this.streamed >= this.limits.streamBytes) return
    this.streamed += size
    if (this.pending && this.pending.stream !== stream) this.flush()
    this.pending = { stream, text: (this.pending?.text ?? '') + text }
    if (this.streamed >= this.limits.streamBytes) {
      this.pending.text += `\n[TRUNCATED: streaming stopped after ${this.limits.streamBytes} bytes; the command is still running and the end of its output will be in the result]\n`
      this.flush()
    } else if (this.pending.text.length >= this.limits.flushBytes) this.flush()
    else this.timer ??= setTimeout(() => this.flush(), this.limits.flushMs)
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    const pending = this.pending
    this.pending = null
    if (pending && pending.text !== '') this.onOutput?.(pending.stream, pending.text)
  }
}

/** The largest n' ≤ n such that bytes[0, n') ends on a whole UTF-8 character. */
function charBoundary(bytes: Buffer, n: number): number {
  if (n >= bytes.length) return bytes.length
  let i = n
  while (i > 0 && (bytes[i] & 0xc0) === 0x80) i--
  return i
}

/** The first character start at or after `n`. */
function charStart(bytes: Buffer, n: number): number {
  let i = n
  while (i < bytes.length && (bytes[i] & 0xc0) === 0x80) i++
  return i
}
