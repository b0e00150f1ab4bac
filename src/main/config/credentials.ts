import fs from 'node:fs'
import path from 'node:path'
import { providerDescriptor } from '../../shared/providers'

/**
 * API keys for the CLI: a JSON file readable by the user alone (0600), beside the
 * database. The desktop app keeps keys in the OS keychain instead (safeStorage).
 * Keys never go into the database, events or logs.
 */
const FILE = 'credentials.json'

type Credentials = Record<string, string>

/** The file keys are saved in (said to the user, so they know where their key is). */
export function credentialsFile(dataDir: string): string {
  return path.join(dataDir, FILE)
}

export function readApiKey(dataDir: string, provider: string): string | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(credentialsFile(dataDir), 'utf8')) as Credentials
    const key = parsed[provider]
    return typeof key === 'string' && key ? key : undefined
  } catch {
    return undefined
  }
}

export function writeApiKey(dataDir: string, provider: string, key: string): void {
  fs.mkdirSync(dataDir, { recursive: true })
  const file = credentialsFile(dataDir)
  let current: Credentials = {}
  try {
    current = JSON.parse(fs.readFileSync(file, 'utf8')) as Credentials
  } catch {
    // absent or unreadable: start afresh
  }
  current[provider] = key
  const tmp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(tmp, JSON.stringify(current, null, 2), { mode: 0o600 })
  fs.renameSync(tmp, file)
  fs.chmodSync(file, 0o600)
}

/** The key for a provider: the environment first, then the stored file. */
export function resolveApiKey(env: NodeJS.ProcessEnv, dataDir: string, provider: string): string | undefined {
  const variable = providerDescriptor(provider).env.apiKey
  if (variable && env[variable]) return env[variable]
  return readApiKey(dataDir, provider)
}
