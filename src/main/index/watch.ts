import path from 'node:path'
import { watch } from 'chokidar'
import type { Sandbox } from '../sandbox/types'
import type { CodeIndex, UpdateReport } from './code-index'

/*
 * Keeps the index fresh while the app or a CLI run is open: chokidar reports
 * saves, deletes and renames; they are gathered for 500 ms of quiet (an editor's
 * save, a formatter and a git checkout each touch many files at once) and then
 * re-indexed in one update. Ignored and denied paths are never watched.
 */

export const DEFAULT_DEBOUNCE_MS = 500

export interface IndexWatcher {
  /** Resolves once the initial scan is done and events are being reported. */
  readonly ready: Promise<void>
  /** Runs the pending update now (tests, shutdown) and waits for it. */
  flush(): Promise<void>
  close(): Promise<void>
}

export interface WatchOptions {
  sandbox: Sandbox
  debounceMs?: number
  onUpdate?: (report: UpdateReport) => void
  onError?: (error: Error) => void
}

export function watchIndex(index: CodeIndex, opts: WatchOptions): IndexWatcher {
  const root = index.root
  const debounceMs = opts.debounceMs ?? DEFAULT_DEBOUNCE_MS
  const pending = new Set<string>()
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> = Promise.resolve()
  let closed = false

  const ignored = (abs: string): boolean => {
    const rel = path.relative(root, abs).split(path.sep).join('/')
    if (rel === '' || rel.startsWith('..')) return false
    return opts.sandbox.isIgnored(rel)
  }

  const watcher = watch(root, {
    ignored,
    ignoreInitial: true,
    followSymlinks: false,
    persistent: true,
  })

  const run = (): Promise<void> => {
    if (timer) clearTimeout(timer)
    timer = undefined
    if (pending.size === 0 || closed) return running
    const paths = [...pending]
    pending.clear()
    running = running
      .then(() => index.update(paths))
      .then((report) => opts.onUpdate?.(report))
      .catch((err: unknown) => opts.onError?.(err as Error))
    return running
  }

  const onEvent = (abs: string) => {
    if (closed) return
    pending.add(abs)
    if (timer) clearTimeout(timer)
    timer = setTimeout(() => void run(), debounceMs)
  }
  for (const event of ['add', 'change', 'unlink', 'unlinkDir'] as const) watcher.on(event, onEvent)
  watcher.on('error', (err) => opts.onError?.(err as Error))

  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()))

  return {
    ready,
    flush: run,
    async close() {
      closed = true
      if (timer) clearTimeout(timer)
      pending.clear()
      await watcher.close()
      await running
    },
  }
}
