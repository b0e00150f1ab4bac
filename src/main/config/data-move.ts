import path from 'node:path'
import { adoptLegacyDatabase } from '../store/legacy-move'
import { defaultDataDir } from './paths'

export { adoptLegacyDatabase, type DataMove } from '../store/legacy-move'

/**
 * The desktop app's data folder, and moving its old database there once (the move itself:
 * store/legacy-move.ts, which owns the store's file).
 */

/** `--data-dir DIR` or `--data-dir=DIR` among a process's arguments (the desktop app's flags). */
export function dataDirFlag(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--data-dir' && argv[i + 1]) return argv[i + 1]
    if (arg.startsWith('--data-dir=')) return arg.slice('--data-dir='.length)
  }
  return undefined
}

/**
 * The desktop app's data folder, the same as every other host's (`--data-dir`, then
 * `$STEPWISE_HOME`, then the OS folder), after moving the old database out of Electron's
 * `legacyDir` when it is the only one. `notices` are said once, in the app.
 */
export function desktopDataDir(
  legacyDir: string,
  argv: readonly string[] = process.argv,
  env: NodeJS.ProcessEnv = process.env,
): { dataDir: string; notices: string[] } {
  const flag = dataDirFlag(argv)
  const dataDir = path.resolve(flag ?? defaultDataDir(env))
  // An explicit folder is the user's choice: nothing is moved into it.
  if (flag || env.STEPWISE_HOME) return { dataDir, notices: [] }
  const move = adoptLegacyDatabase(legacyDir, dataDir)
  switch (move.kind) {
    case 'none':
      return { dataDir, notices: [] }
    case 'moved':
      return { dataDir, notices: [move.message] }
    case 'busy':
    case 'failed':
      return { dataDir: legacyDir, notices: [move.message] }
  }
}
