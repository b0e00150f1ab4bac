import {
  appSettingsSchema,
  modelOptionsSchema,
  type AppSettings,
  type ModelOptionsSetting,
} from '../../shared/protocol'
import { z } from 'zod'
import { parseJsonObject } from '../../shared/records'
import { DEFAULT_MAX_TOOL_CALLS } from '../agent/loop'
import { commandSettingsFrom, type CommandSettings } from '../sandboxing/settings'
import { DEFAULT_LIMITS, DEFAULT_MAX_STEPS } from '../session/start'
import type { Store } from '../store/types'

/**
 * The app's settings, in the store's settings table: the command lists under
 * `commands` (shared with the CLI, other fields kept) and the rest under `app`.
 * A stored value that no longer parses falls back to the default, field by field.
 */

const DEFAULTS: Omit<AppSettings, 'commands'> = {
  approvalPolicy: 'ask',
  limits: DEFAULT_LIMITS,
  theme: 'system',
  maxSteps: DEFAULT_MAX_STEPS,
  maxToolCalls: DEFAULT_MAX_TOOL_CALLS,
  modelOptions: {},
}

function readJson(store: Pick<Store, 'getSetting'>, key: string): Record<string, unknown> {
  return parseJsonObject(store.getSetting(key) ?? '{}') ?? {}
}

/**
 * The stored `commands` setting, the one reader of it for every host. `onInvalid` hears when
 * the stored text is not a JSON object; the defaults are used then.
 */
export function commandSettings(
  store: Pick<Store, 'getSetting'>,
  onInvalid?: (message: string) => void,
): CommandSettings {
  const stored = store.getSetting('commands')
  const parsed = stored === undefined ? {} : parseJsonObject(stored)
  if (!parsed) onInvalid?.('the stored "commands" setting is not a valid JSON object; using the defaults.')
  return commandSettingsFrom(parsed)
}

const shape = appSettingsSchema.shape

/** The stored `app` object, field by field: a field that is missing or no longer parses takes its default. */
const storedAppSettings = z.object({
  approvalPolicy: shape.approvalPolicy.catch(DEFAULTS.approvalPolicy),
  limits: shape.limits.catch(DEFAULTS.limits),
  theme: shape.theme.catch(DEFAULTS.theme),
  maxSteps: shape.maxSteps.catch(DEFAULTS.maxSteps),
  maxToolCalls: shape.maxToolCalls.catch(DEFAULTS.maxToolCalls),
  modelOptions: shape.modelOptions.catch(DEFAULTS.modelOptions),
})

export function readSettings(store: Store): AppSettings {
  const stored = storedAppSettings.parse(readJson(store, 'app'))
  const { allow, deny } = commandSettings(store)
  return { ...stored, commands: { allow, deny } }
}

/** The model options a host's flags set (`--num-ctx`, `--temperature`, the stream limits). */
export function flagModelOptions(flags: ModelOptionsSetting): ModelOptionsSetting {
  const { numCtx, temperature, firstTokenTimeoutSec, idleTimeoutSec, maxOutputTokens } = flags
  return { numCtx, temperature, firstTokenTimeoutSec, idleTimeoutSec, maxOutputTokens }
}

/**
 * The stored window, temperature and stream limits (the app's settings), with `over` (a host's
 * flags: `serve --num-ctx`, `edit --temperature`, `--idle-timeout`) taking precedence field by field.
 */
export function storedModelOptions(
  store: Pick<Store, 'getSetting'>,
  over: ModelOptionsSetting = {},
): ModelOptionsSetting {
  const parsed = modelOptionsSchema.safeParse(readJson(store, 'app').modelOptions)
  const base = parsed.success ? parsed.data : {}
  const defined = Object.fromEntries(Object.entries(over).filter(([, v]) => v !== undefined))
  return { ...base, ...defined }
}

export function writeSettings(store: Store, patch: Partial<AppSettings>): AppSettings {
  const { commands, ...rest } = patch
  if (commands) store.setSetting('commands', JSON.stringify({ ...readJson(store, 'commands'), ...commands }))
  if (Object.keys(rest).length > 0)
    store.setSetting('app', JSON.stringify({ ...readJson(store, 'app'), ...rest }))
  return readSettings(store)
}
