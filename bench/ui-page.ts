import type { Page } from 'playwright-core'

/*
 * What bench/ui.bench.ts runs inside the page. Each function passed to `page.evaluate`
 * is serialized, so it uses nothing from this module but types. This tsconfig has no DOM
 * library: the few browser APIs used are typed here, structurally.
 *
 * "Painted" is the end of the frame that shows a change: the change is seen in a
 * requestAnimationFrame callback (or a MutationObserver, which then waits for that
 * callback), and a message posted from there runs once the frame has been rendered.
 */

interface PageElement {
  scrollTop: number
  readonly scrollHeight: number
  readonly clientHeight: number
  readonly textContent: string | null
  readonly disabled?: boolean
  getAttribute(name: string): string | null
  querySelector(selector: string): PageElement | null
  querySelectorAll(selector: string): ArrayLike<PageElement>
  getBoundingClientRect(): { top: number; bottom: number; height: number }
  click(): void
}

interface PageSocket {
  onopen: (() => void) | null
  onerror: (() => void) | null
  onmessage: ((event: { data: unknown }) => void) | null
  send(data: string): void
  close(): void
}

interface PageWindow {
  document: PageElement & { body: PageElement }
  location: { host: string; protocol: string }
  performance: { now(): number; timeOrigin: number }
  requestAnimationFrame(callback: () => void): number
  MutationObserver: new (callback: () => void) => {
    observe(target: PageElement, options: Record<string, unknown>): void
    disconnect(): void
  }
  MessageChannel: new () => {
    port1: { onmessage: (() => void) | null }
    port2: { postMessage(message: unknown): void }
  }
  WebSocket: new (url: string) => PageSocket
  __uiBench?: LiveProbe
}

export const TIMELINE = '[role="list"][aria-label="Session timeline"]'
export const ROW = '[data-testid="timeline-step"]'

/**
 * Click to painted: ms from clicking the session's list item until its newest row has been painted
 * (and, with `needs`, an element matching it is on the page too: the overview's bars).
 */
export function loadSessionTimed(
  page: Page,
  sessionId: string,
  lastSeq: number,
  needs?: string,
): Promise<number> {
  return page.evaluate(
    ({ sessionId, lastSeq, TIMELINE, ROW, needs }) => {
      const w = globalThis as unknown as PageWindow
      const item = w.document.querySelector(
        `[data-testid="session-list-item"][data-session-id="${sessionId}"]`,
      )
      if (!item) throw new Error(`session ${sessionId} is not listed`)
      const visible = (): boolean => {
        const row = w.document.querySelector(`${ROW}[data-seq="${lastSeq}"]`)
        const list = w.document.querySelector(TIMELINE)
        if (!row || !list || (needs && !w.document.querySelector(needs))) return false
        const r = row.getBoundingClientRect()
        const l = list.getBoundingClientRect()
        return r.height > 0 && r.bottom > l.top && r.top < l.bottom
      }
      return new Promise<number>((resolve, reject) => {
        const start = w.performance.now()
        const deadline = start + 30_000
        const frame = (): void => {
          if (visible()) {
            const channel = new w.MessageChannel()
            channel.port1.onmessage = () => resolve(w.performance.now() - start)
            channel.port2.postMessage(null)
          } else if (w.performance.now() > deadline) {
            reject(new Error(`row ${lastSeq} was not shown within 30 s`))
          } else w.requestAnimationFrame(frame)
        }
        item.click()
        w.requestAnimationFrame(frame)
      })
    },
    { sessionId, lastSeq, TIMELINE, ROW, needs },
  )
}

/** `session/events` over a second WebSocket of the page: ms from send until the reply is parsed. */
export function fetchEventsTimed(page: Page, sessionId: string): Promise<{ ms: number; events: number }> {
  return page.evaluate((sessionId) => {
    const w = globalThis as unknown as PageWindow
    const socket = new w.WebSocket(
      `${w.location.protocol === 'https:' ? 'wss' : 'ws'}://${w.location.host}/ws`,
    )
    return new Promise<{ ms: number; events: number }>((resolve, reject) => {
      let start = 0
      socket.onerror = () => reject(new Error('the WebSocket failed'))
      socket.onopen = () => {
        start = w.performance.now()
        socket.send(JSON.stringify({ id: 1, command: 'session/events', input: { sessionId } }))
      }
      socket.onmessage = (event) => {
        const frame = JSON.parse(String(event.data)) as {
          id?: number
          reply?: { ok: boolean; output?: { events: unknown[] }; error?: string }
        }
        if (frame.id !== 1 || !frame.reply) return
        const ms = w.performance.now() - start
        socket.close()
        if (!frame.reply.ok || !frame.reply.output) reject(new Error(frame.reply.error ?? 'no events'))
        else resolve({ ms, events: frame.reply.output.events.length })
      }
    })
  }, sessionId)
}

export interface Sweep {
  /** The most elements inside the timeline container at any position. */
  maxNodes: number
  maxRows: number
  positions: number
  /** Every row seen: [seq, kind, status] as last seen. */
  rows: Array<[number, string, string]>
}

/**
 * Scrolls the timeline from top to bottom, two frames per position: `positions` even
 * steps, or (0) half a screen at a time until the end.
 */
export function sweepTimeline(page: Page, positions: number): Promise<Sweep> {
  return page.evaluate(
    async ({ positions, TIMELINE, ROW }) => {
      const w = globalThis as unknown as PageWindow
      const list = w.document.querySelector(TIMELINE)
      if (!list) throw new Error('no timeline')
      const frames = (): Promise<void> =>
        new Promise((resolve) => w.requestAnimationFrame(() => w.requestAnimationFrame(() => resolve())))
      const seen = new Map<number, [number, string, string]>()
      let maxNodes = 0
      let maxRows = 0
      let count = 0
      const look = (): void => {
        count++
        maxNodes = Math.max(maxNodes, list.querySelectorAll('*').length)
        const rows = list.querySelectorAll(ROW)
        maxRows = Math.max(maxRows, rows.length)
        for (let i = 0; i < rows.length; i++) {
          const seq = Number(rows[i].getAttribute('data-seq'))
          seen.set(seq, [
            seq,
            rows[i].getAttribute('data-kind') ?? '',
            rows[i].getAttribute('data-status') ?? '',
          ])
        }
      }
      const end = (): number => list.scrollHeight - list.clientHeight
      list.scrollTop = 0
      await frames()
      look()
      if (positions > 1) {
        // The total height changes as rows are measured: each step aims at the current end.
        for (let i = 1; i < positions; i++) {
          list.scrollTop = (end() * i) / (positions - 1)
          await frames()
          look()
        }
      } else {
        while (list.scrollTop < end() - 1) {
          list.scrollTop += list.clientHeight / 2
          await frames()
          look()
        }
      }
      // Until the real end: the last positions may have grown the list.
      for (let i = 0; i < 20 && list.scrollTop < end() - 1; i++) {
        list.scrollTop = end()
        await frames()
        look()
      }
      return { maxNodes, maxRows, positions: count, rows: [...seen.values()].sort((a, b) => a[0] - b[0]) }
    },
    { positions, TIMELINE, ROW },
  )
}

/** Per timeline row (by data-seq): epoch ms when it was first in the DOM / painted, and when it first showed ok. */
export interface LiveRow {
  kind: string
  dom: number
  painted?: number
  okDom?: number
  okPainted?: number
}

export interface LiveProbe {
  rows: Record<number, LiveRow>
  /** Epoch ms when each message with a seq arrived on the probe's own WebSocket. */
  arrivals: Record<number, number>
  sessionId: string | null
  turnEnded: boolean
}

/**
 * Before a message is sent: watches the timeline rows (a MutationObserver on the whole
 * page, as the timeline mounts with the first step) and opens a second WebSocket that
 * stamps every event as it arrives. Times are `timeOrigin + now()`: the host's clock.
 */
export function installLiveProbe(page: Page): Promise<void> {
  return page.evaluate((ROW) => {
    const w = globalThis as unknown as PageWindow
    const clock = (): number => w.performance.timeOrigin + w.performance.now()
    const probe: LiveProbe = { rows: {}, arrivals: {}, sessionId: null, turnEnded: false }
    w.__uiBench = probe

    let pending: LiveRow[] = []
    let pendingOk: LiveRow[] = []
    let scheduled = false
    const channel = new w.MessageChannel()
    channel.port1.onmessage = () => {
      const t = clock()
      for (const row of pending) row.painted = t
      for (const row of pendingOk) row.okPainted = t
      pending = []
      pendingOk = []
      scheduled = false
    }
    const observer = new w.MutationObserver(() => {
      const t = clock()
      const rows = w.document.querySelectorAll(ROW)
      for (let i = 0; i < rows.length; i++) {
        const seq = Number(rows[i].getAttribute('data-seq'))
        let row = probe.rows[seq]
        if (!row) {
          row = probe.rows[seq] = { kind: rows[i].getAttribute('data-kind') ?? '', dom: t }
          pending.push(row)
        }
        if (row.okDom === undefined && rows[i].getAttribute('data-status') === 'ok') {
          row.okDom = t
          pendingOk.push(row)
        }
      }
      if (!scheduled && (pending.length > 0 || pendingOk.length > 0)) {
        scheduled = true
        w.requestAnimationFrame(() => channel.port2.postMessage(null))
      }
    })
    observer.observe(w.document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-status', 'data-seq'],
    })

    const socket = new w.WebSocket(
      `${w.location.protocol === 'https:' ? 'wss' : 'ws'}://${w.location.host}/ws`,
    )
    socket.onmessage = (event) => {
      const t = clock()
      const frame = JSON.parse(String(event.data)) as {
        message?: { type: string; seq?: number; sessionId?: string }
      }
      const message = frame.message
      if (!message) return
      if (typeof message.seq === 'number' && probe.arrivals[message.seq] === undefined) {
        probe.arrivals[message.seq] = t
        probe.sessionId = message.sessionId ?? null
      }
      if (message.type === 'host.turn-ended') probe.turnEnded = true
    }
    return new Promise<void>((resolve, reject) => {
      socket.onopen = () => resolve()
      socket.onerror = () => reject(new Error('the probe WebSocket failed'))
    })
  }, ROW)
}

export function readLiveProbe(page: Page): Promise<LiveProbe> {
  return page.evaluate(() => {
    const probe = (globalThis as unknown as PageWindow).__uiBench
    if (!probe) throw new Error('no live probe in the page')
    return probe
  })
}

/** The count on the "Tools" filter chip. */
export async function toolsChipCount(page: Page): Promise<number> {
  const text = await page.locator('[data-category="tools"] .tlf-count').textContent()
  return Number(text)
}
