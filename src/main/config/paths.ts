import os from 'node:os'
import path from 'node:path'

/**
 * Where Stepwise keeps its database and settings: `--data-dir`, else
 * `$STEPWISE_HOME`, else the OS app-data folder. The Electron host passes
 * `app.getPath('userData')` instead; the core never looks it up itself.
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
