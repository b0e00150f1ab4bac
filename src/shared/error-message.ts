/** What a caught value says: an Error's message, anything else as text (a throw may throw anything). */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
