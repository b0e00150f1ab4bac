/** See data-dir.mjs: `$STEPWISE_HOME`, else the OS app-data folder. */
export declare function defaultDataDir(env?: NodeJS.ProcessEnv, platform?: NodeJS.Platform): string
