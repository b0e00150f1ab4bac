/*
 * The environment a command sees (docs/sandbox.md#commands: children never inherit API keys).
 * It is built from an allowlist of names — the shell basics, locale, and the
 * toolchains' own variables — never from a list of names to remove, so a key
 * under a name nobody thought of (`LITELLM_MASTER_KEY`) stays out. Even an
 * allowed name is dropped when its value looks like a credential. The user adds
 * names in settings (`CommandSettings.env`); those pass as given. A few
 * variables are set so tools never wait for a human: no prompts, no pagers, CI mode.
 */

/** Exact names passed through when present. */
const ALLOWED_NAMES = new Set([
  // shell and session basics
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'COLORTERM',
  'TZ',
  'TMPDIR',
  'LANG',
  'LANGUAGE',
  'NO_COLOR',
  'FORCE_COLOR',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  // toolchains
  'GOPATH',
  'GOROOT',
  'GOCACHE',
  'GOMODCACHE',
  'GOFLAGS',
  'GOTOOLCHAIN',
  'CGO_ENABLED',
  'CARGO_HOME',
  'RUSTUP_HOME',
  'RUSTUP_TOOLCHAIN',
  'JAVA_HOME',
  'MAVEN_HOME',
  'M2_HOME',
  'GRADLE_HOME',
  'GRADLE_USER_HOME',
  'PYTHONPATH',
  'PYTHONHOME',
  'VIRTUAL_ENV',
  'CONDA_PREFIX',
  'PYENV_ROOT',
  'NVM_DIR',
  'NVM_BIN',
  'VOLTA_HOME',
  'BUN_INSTALL',
  'DENO_DIR',
  'NODE_ENV',
  'NODE_PATH',
  'CC',
  'CXX',
  'PKG_CONFIG_PATH',
  'LD_LIBRARY_PATH',
  'CI',
])

/** Name prefixes passed through (`LC_ALL`, `LC_CTYPE`, …). */
const ALLOWED_PREFIXES = ['LC_']

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

export function looksLikeCredential(value: string): boolean {
  return SECRET_VALUE.some((re) => re.test(value))
}

/** Whether the built-in allowlist passes this name (before the value check). */
export function isAllowedVariable(name: string): boolean {
  return ALLOWED_NAMES.has(name) || ALLOWED_PREFIXES.some((p) => name.startsWith(p))
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

/** A user entry matches a name exactly, or as a prefix when it ends in `*` (`MYAPP_*`). */
function userAllows(name: string, extra: readonly string[]): boolean {
  return extra.some((entry) => (entry.endsWith('*') ? name.startsWith(entry.slice(0, -1)) : entry === name))
}

/**
 * The child's environment: allowlisted names whose values do not look like
 * credentials, the user's extra names as they are, and the non-interactive set.
 */
export function childEnv(
  env: NodeJS.ProcessEnv = process.env,
  extra: readonly string[] = [],
): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue
    if (userAllows(name, extra) || (isAllowedVariable(name) && !looksLikeCredential(value))) out[name] = value
  }
  return { ...out, ...NON_INTERACTIVE }
}
