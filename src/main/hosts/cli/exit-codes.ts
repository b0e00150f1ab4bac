/** Exit codes of the `stepwise` CLI (docs/cli.md). Scripts depend on them. */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  stepLimit: 3,
  /** The model is unreachable or misconfigured (URL, key, model name). */
  model: 4,
  interrupted: 130,
} as const

/** A mistake in how the CLI was called: printed as is, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}
