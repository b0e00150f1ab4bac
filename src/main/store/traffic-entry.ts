import type { ProviderId } from '../../shared/protocol'

/** One request or response body as a provider sent or received it: a row of the raw traffic log the store keeps. */
export interface TrafficEntry {
  direction: 'request' | 'response'
  provider: ProviderId
  url: string
  status?: number
  /** Request JSON, or the response body exactly as received (SSE / NDJSON text). */
  body: string
}
