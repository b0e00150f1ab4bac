import type { Guard } from './open'
import type { SqliteDatabase } from './sqlite'
import type { Store } from './types'

/** The `settings` table: a key and its value, for what the core keeps between runs. */
export function createSettingsRepository(
  db: SqliteDatabase,
  guard: Guard,
): Pick<Store, 'getSetting' | 'setSetting'> {
  const get = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?')
  const set = db.prepare<[string, string]>(
    'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
  )
  return {
    getSetting: (key) => get.get(key)?.value,
    setSetting(key, value) {
      guard(() => set.run(key, value))
    },
  }
}
