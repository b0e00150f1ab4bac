/* What hosts and the agent loop use from the command layer. */
export { sandboxStatus, type SandboxStatus } from './bwrap'
export { checkCommand, type CommandVerdict, type PolicyLists, type Verdict } from './policy'
export { runCommand, type RunOptions, type RunResult } from './runner'
export {
  DEFAULT_COMMAND_SETTINGS,
  MAX_TIMEOUT_S,
  commandSettingsFrom,
  type CommandSettings,
} from './settings'
export { formatFailure, verifyProject, type VerifyOptions, type VerifyResult } from './verify'
export { detectProjectCommands, type ProjectCommands } from './detect'
