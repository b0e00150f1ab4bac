/* What hosts and the agent loop use from the command layer. */
export {
  sandboxStatus,
  unconfinedCommandProblem,
  type SandboxGuarantees,
  type SandboxStatus,
} from './sandbox-probe'
export { hideFromCommands } from './secrets-mask'
export { keepSecretsScansIn } from './secrets-scan-state'
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
