import os from 'node:os'
import path from 'node:path'

/**
 * Where Stepwise keeps its database and settings: `--data-dir`, else
 * `$STEPWISE_HOME`, else the OS app-data folder — the same for every host: the CLI,
 * `stepwise serve` and the desktop app (which moves its old database out of Electron's
 * `userData` folder once: config/data-move.ts).
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (env.STEPWISE_HOME) return path.resolve(env.STEPWISE_HOME)
  const home = os.homedir()
  switch (platform) {
    case 'darwin':
      return path.join(home, 'Library', 'Application Support', 'Stepwise')
    case 'win32':
      return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Stepwise')
    default:
      return path.join(env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'stepwise')
  }
}
