/** Bumped on any incompatible change to commands or events. */
export const PROTOCOL_VERSION = 1

export * from './approval'
export * from './events'
export * from './commands'
export * from './commands-app'
export * from './commands-models'
export * from './notices'
export * from './mcp'
export * from './wire'
