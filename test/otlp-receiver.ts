/**
 * A test OTLP/HTTP trace receiver on 127.0.0.1: it keeps every request body posted to
 * /v1/traces (OTLP/JSON, as the official exporter sends it) and answers as a collector
 * does. `hang` never answers, for the "a dead collector must not hold the process" case.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface OtlpSpanJson {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  startTimeUnixNano: string
  endTimeUnixNano: string
  attributes: { key: string; value: Record<string, unknown> }[]
  events: {
    name: string
    timeUnixNano: string
    attributes: { key: string; value: Record<string, unknown> }[]
  }[]
  status: { code: number; message?: string }
}

export interface OtlpReceiver {
  /** The value for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  endpoint: string
  requests: { path: string; headers: http.IncomingHttpHeaders; body: string }[]
  /** Every span of every request, with its resource's attributes. */
  spans(): { span: OtlpSpanJson; resource: Record<string, unknown> }[]
  close(): Promise<void>
}

export async function startOtlpReceiver(opts: { hang?: boolean } = {}): Promise<OtlpReceiver> {
  const requests: OtlpReceiver['requests'] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (d: Buffer) => (body += d.toString('utf8')))
    req.on('end', () => {
      requests.push({ path: req.url ?? '', headers: req.headers, body })
      if (opts.hang) return
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    spans() {
      return requests
        .filter((r) => r.path === '/v1/traces')
        .flatMap((r) => {
          const parsed = JSON.parse(r.body) as {
            resourceSpans: {
              resource: { attributes: { key: string; value: { stringValue?: string } }[] }
              scopeSpans: { spans: OtlpSpanJson[] }[]
            }[]
          }
          return parsed.resourceSpans.flatMap((rs) => {
            const resource = Object.fromEntries(
              rs.resource.attributes.map((a) => [a.key, a.value.stringValue]),
            )
            return rs.scopeSpans.flatMap((ss) => ss.spans.map((span) => ({ span, resource })))
          })
        })
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
