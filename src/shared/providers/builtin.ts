import type { ProviderDescriptor } from './descriptor'

/** The providers the app ships, local first then the cloud: the order of the picker's tabs. */
export const OLLAMA: ProviderDescriptor = {
  id: 'ollama',
  label: 'Ollama',
  wire: 'ollama',
  apiKey: 'none',
  canPull: true,
  defaultBaseUrl: 'http://127.0.0.1:11434',
  pricing: 'none',
  env: { baseUrl: 'OLLAMA_HOST', model: 'OLLAMA_MODEL' },
  defaultModel: 'qwen2.5-coder:7b',
  localServer: { start: 'ollama serve', pull: 'ollama pull' },
}

export const OPENAI: ProviderDescriptor = {
  id: 'openai',
  label: 'OpenAI',
  wire: 'responses',
  apiKey: 'required',
  canPull: false,
  defaultBaseUrl: 'https://api.openai.com/v1',
  pricing: 'per-provider',
  env: { baseUrl: 'OPENAI_BASE_URL', apiKey: 'OPENAI_API_KEY', model: 'OPENAI_MODEL' },
  defaultModel: 'gpt-4.1-mini',
  keyHint: 'sk-…',
}

export const OPENAI_CHAT: ProviderDescriptor = {
  id: 'openai-chat',
  label: 'OpenAI-compatible',
  wire: 'chat-completions',
  apiKey: 'optional',
  canPull: false,
  pricing: 'per-address',
  description:
    'Any server that speaks the OpenAI chat completions API: LM Studio, vLLM, llama.cpp, OpenRouter.',
  env: { baseUrl: 'OPENAI_BASE_URL', apiKey: 'OPENAI_API_KEY', model: 'OPENAI_MODEL' },
}

export const BUILTIN_PROVIDERS: readonly ProviderDescriptor[] = [OLLAMA, OPENAI, OPENAI_CHAT]
