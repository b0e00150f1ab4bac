/*
 * What a caught value says, without asserting its type: a `catch` binds `unknown`, and a thrown
 * value need not be an Error (a string, a rejected non-Error, an error from another realm).
 */

/** The message of a caught value: an Error's own, or the value as text. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

/** The `code` of a Node system error (`ENOENT`, `EACCES`, …); undefined for anything else. */
export function errnoCode(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined
  const code: unknown = Reflect.get(err, 'code')
  return typeof code === 'string' ? code : undefined
}
