/*
 * The environment a command sees (DESIGN §4: children never inherit API keys).
 * A variable goes when its name looks like a secret or its value looks like a
 * credential; agent sockets (ssh, gpg, D-Bus keyrings) go too. A few variables
 * are set so tools never wait for a human: no prompts, no pagers, CI mode.
 */

const SECRET_NAME = new RegExp(
  [
    'API_?KEY',
    'TOKEN',
    'SECRET',
    'PASSWORD',
    'PASSWD',
    'PASSPHRASE',
    '_PASS$',
    '_PAT$',
    '^PASS$',
    'CREDENTIAL',
    'PRIVATE_?KEY',
    'ACCESS_?KEY',
    '_AUTH',
    '^AUTH',
    'COOKIE',
    'SESSION_?KEY',
    '^OPENAI_',
    '^ANTHROPIC_',
    '^AWS_',
    '^AZURE_',
    '^GCP_',
    '^GCLOUD_',
    '^HF_',
    '^HUGGING',
    '^OPENROUTER_',
    '^MISTRAL_',
    '^GROQ_',
    '^DEEPSEEK_',
    '^COHERE_',
    '^REPLICATE_',
    '^SSH_AUTH_SOCK$',
    '^SSH_AGENT_PID$',
    '^GPG_AGENT_INFO$',
    '^DBUS_SESSION_BUS_ADDRESS$',
    '^STEPWISE_.*KEY',
  ].join('|'),
  'i',
)

/** Values that are credentials whatever the variable is called. */
const SECRET_VALUE = [
  /:\/\/[^/\s:@]+:[^/\s@]+@/, // https://user:password@host
  /^sk-[A-Za-z0-9_-]{16,}/, // OpenAI / Anthropic style keys
  /^(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/,
  /^github_pat_/,
  /^glpat-/,
  /^xox[abposr]-/,
  /^AKIA[0-9A-Z]{16}$/,
  /^npm_[A-Za-z0-9]{30,}/,
  /^hf_[A-Za-z0-9]{30,}/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
]

export function isSecretVariable(name: string, value: string): boolean {
  return SECRET_NAME.test(name) || SECRET_VALUE.some((re) => re.test(value))
}

/** Set for every command: no prompt or pager waits for a human; test runners leave watch mode off. */
const NON_INTERACTIVE: Record<string, string> = {
  CI: 'true',
  GIT_TERMINAL_PROMPT: '0',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
  GCM_INTERACTIVE: 'never',
  DEBIAN_FRONTEND: 'noninteractive',
}

export function scrubEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || isSecretVariable(name, value)) continue
    out[name] = value
  }
  return { ...out, ...NON_INTERACTIVE }
}
