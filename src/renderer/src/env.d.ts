/// <reference types="vite/client" />

/** Injected by electron.vite.config.ts from package.json, so the window and the CLI agree. */
declare const __APP_VERSION__: string
