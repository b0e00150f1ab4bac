/**
 * Where Stepwise keeps its database and settings: `--data-dir`, else
 * `$STEPWISE_HOME`, else the OS app-data folder — the same for every host: the CLI,
 * `stepwise serve`, the desktop app (which moves its old database out of Electron's
 * `userData` folder once: config/data-move.ts) and `npm start` (scripts/start.mjs). The rule
 * itself is plain JavaScript (data-dir.mjs) so that script can use it before a build.
 */
export { defaultDataDir } from './data-dir.mjs'
