import { EXIT } from './exit-codes'

/**
 * The signals that end a run the way Ctrl+C does: SIGINT (Ctrl+C), SIGTERM (`kill`, a CI job's
 * timeout, a service manager) and SIGHUP (the terminal closed). The first stops the session —
 * its end is recorded, watchers close, the process exits with the interrupted code; a second one
 * quits at once. A SIGKILL cannot be caught: the store then reads the session as interrupted
 * because its process is gone (store/liveness.ts).
 */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
export type StopSignal = (typeof STOP_SIGNALS)[number]

/** Listens for the stop signals; `onStop` runs for the first one. Returns the function that stops listening. */
export function onStopSignals(
  onStop: (signal: StopSignal) => void,
  opts: { beforeNotice?: () => void } = {},
): () => void {
  let received = 0
  const handler = (signal: StopSignal): void => {
    received += 1
    if (received > 1) process.exit(EXIT.interrupted)
    // After a hangup the terminal is gone: a failed write must not crash the orderly stop.
    if (signal === 'SIGHUP') for (const s of [process.stdout, process.stderr]) s.on('error', () => undefined)
    opts.beforeNotice?.()
    try {
      process.stderr.write(
        signal === 'SIGINT'
          ? '\nInterrupting… (Ctrl+C again to quit at once)\n'
          : `\nstepwise: ${signal}: stopping the session… (again to quit at once)\n`,
      )
    } catch {
      // a closed terminal
    }
    onStop(signal)
  }
  for (const s of STOP_SIGNALS) process.on(s, handler)
  return () => {
    for (const s of STOP_SIGNALS) process.off(s, handler)
  }
}
