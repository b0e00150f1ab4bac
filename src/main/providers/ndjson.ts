/**
 * Incremental newline-delimited JSON reader (Ollama's /api/chat and /api/pull).
 * It yields raw lines; the caller parses them, so a garbage line can be skipped
 * (as ollama-js does) while a missing `done` still fails the turn.
 */
export class NdjsonParser {
  private buffer = ''

  constructor(private readonly onLine: (line: string) => void) {}

  /** Feed decoded text; returns how many lines it completed. */
  push(text: string): number {
    this.buffer += text
    let lines = 0
    let nl = this.buffer.indexOf('\n')
    while (nl !== -1) {
      if (this.emit(this.buffer.slice(0, nl))) lines++
      this.buffer = this.buffer.slice(nl + 1)
      nl = this.buffer.indexOf('\n')
    }
    return lines
  }

  end(): void {
    const rest = this.buffer
    this.buffer = ''
    this.emit(rest)
  }

  private emit(raw: string): boolean {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (line.trim() === '') return false
    this.onLine(line)
    return true
  }
}
