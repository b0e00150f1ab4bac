// The data folder rule in plain JavaScript, so `npm start` (scripts/start.mjs) follows it before
// anything is built and the core (config/paths.ts, which types it) follows the same one.
import os from 'node:os'
import path from 'node:path'

/**
 * Where Stepwise keeps its database and settings when no `--data-dir` is given: `$STEPWISE_HOME`,
 * else the OS app-data folder.
 * @param {Record<string, string | undefined>} [env]
 * @param {string} [platform]
 * @returns {string}
 */
export function defaultDataDir(env = process.env, platform = process.platform) {
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
