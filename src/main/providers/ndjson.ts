/**
 * Incremental newline-delimited JSON reader (Ollama's /api/chat and /api/pull).
 * It yields raw lines; the caller parses them, so a garbage line can be skipped
 * (as ollama-js does) while a missing `done` still fails the turn.
 */
export class NdjsonParser {
  private buffer = ''

  constructor(private readonly onLine: (line: string) => void) {}

  push(text: string): void {
    this.buffer += text
    let nl = this.buffer.indexOf('\n')
    while (nl !== -1) {
      this.emit(this.buffer.slice(0, nl))
      this.buffer = this.buffer.slice(nl + 1)
      nl = this.buffer.indexOf('\n')
    }
  }

  end(): void {
    const rest = this.buffer
    this.buffer = ''
    this.emit(rest)
  }

  private emit(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (line.trim() !== '') this.onLine(line)
  }
}

/** Parses one NDJSON line; undefined for anything that is not a JSON object. */
export function parseJsonObject(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line)
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}
