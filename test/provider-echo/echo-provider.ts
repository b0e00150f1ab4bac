/**
 * A provider added the way docs/newcomers.md says: its descriptor and its client, in this one
 * file, handed to `registerProvider`. "Echo" speaks Chat Completions, so its client is the
 * Chat Completions one under its own id; the test serves it from the fake model server.
 */
import { modelOptions, type ProviderClient } from '../../src/main/providers'
import { OpenAIChatProvider } from '../../src/main/providers/openai-chat'
import type { ProviderDescriptor } from '../../src/shared/providers'

export const ECHO: ProviderDescriptor = {
  id: 'echo',
  label: 'Echo',
  wire: 'chat-completions',
  apiKey: 'none',
  canPull: false,
  pricing: 'none',
  env: { baseUrl: 'ECHO_BASE_URL' },
  defaultModel: 'echo-1',
}

export const echoProvider: ProviderClient = {
  descriptor: ECHO,
  create: (config, baseUrl) =>
    new OpenAIChatProvider(config.model, baseUrl, config.apiKey, { ...modelOptions(config), id: ECHO.id }),
}
