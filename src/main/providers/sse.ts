/**
 * Incremental Server-Sent Events parser. Our own rather than the SDK's because the
 * SDKs silently drop llama.cpp's non-standard `error: {…}` field, throw on an empty
 * `data:` and disagree about a truncated final event (docs/model-protocols.md#chat-framing); we need all
 * three to surface as data.
 */
export interface SseEvent {
  event?: string
  /** The `data:` lines joined with "\n" ('' when the event had none). */
  data: string
  /** llama.cpp (2025 builds) reports mid-stream errors in a non-standard `error:` field. */
  error?: string
}

export class SseParser {
  private buffer = ''
  private eventName: string | undefined
  private dataLines: string[] = []
  private errorField: string | undefined
  private dispatched = 0

  constructor(private readonly onEvent: (event: SseEvent) => void) {}

  /** Feed decoded text; events are dispatched as soon as their blank line arrives. Returns how many were. */
  push(text: string): number {
    this.buffer += text
    const before = this.dispatched
    let start = 0
    for (;;) {
      const nl = this.findLineEnd(start)
      if (nl === -1) break
      const line = this.buffer.slice(start, nl.index)
      start = nl.index + nl.length
      this.line(line)
    }
    this.buffer = this.buffer.slice(start)
    return this.dispatched - before
  }

  /**
   * End of body. A trailing event without its blank line is still dispatched (unlike
   * the spec) so a stream cut mid-JSON reaches the caller's JSON.parse and fails loudly.
   */
  end(): void {
    if (this.buffer.length > 0) {
      const rest = this.buffer.endsWith('\r') ? this.buffer.slice(0, -1) : this.buffer
      this.buffer = ''
      this.line(rest)
    }
    this.dispatch()
  }

  private findLineEnd(from: number): { index: number; length: number } | -1 {
    for (let i = from; i < this.buffer.length; i++) {
      const c = this.buffer.charCodeAt(i)
      if (c === 10) return { index: i, length: 1 }
      if (c === 13) {
        // A lone CR at the end of the buffer may be the first half of CRLF: wait for more.
        if (i + 1 >= this.buffer.length) return -1
        return { index: i, length: this.buffer.charCodeAt(i + 1) === 10 ? 2 : 1 }
      }
    }
    return -1
  }

  private line(line: string): void {
    if (line === '') return this.dispatch()
    if (line.startsWith(':')) return // comment / keep-alive (": OPENROUTER PROCESSING")
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') this.dataLines.push(value)
    else if (field === 'event') this.eventName = value
    else if (field === 'error') this.errorField = value
  }

  private dispatch(): void {
    if (this.dataLines.length === 0 && this.errorField === undefined) {
      this.eventName = undefined
      return
    }
    const event: SseEvent = { data: this.dataLines.join('\n') }
    if (this.eventName !== undefined) event.event = this.eventName
    if (this.errorField !== undefined) event.error = this.errorField
    this.eventName = undefined
    this.dataLines = []
    this.errorField = undefined
    this.dispatched++
    this.onEvent(event)
  }
}
